/**
 * Helpers shared by the chaos, security and bad-input tests: a raw RESP socket and
 * connection factories configured as applications configure them.
 */
@NullMarked
package io.github.distributedlock.chaos.support;

import org.jspecify.annotations.NullMarked;
