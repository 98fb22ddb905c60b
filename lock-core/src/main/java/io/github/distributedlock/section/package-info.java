/**
 * Internal: the interrupt of a running section, shared by the lease-loss interrupt of
 * locked work and by leader-only sections. Not an API.
 */
@NullMarked
package io.github.distributedlock.section;

import org.jspecify.annotations.NullMarked;
