/**
 * The reactive driver: runs the core's decisions as a {@code Mono}, its local lines of
 * waiters, handles and holds. Internal: not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.reactive;

import org.jspecify.annotations.NullMarked;
