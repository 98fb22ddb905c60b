/**
 * Distributed locks for Spring: {@link io.github.distributedlock.LockTemplate}, the
 * request and handle types, and the exceptions.
 */
@NullMarked
package io.github.distributedlock;

import org.jspecify.annotations.NullMarked;
