/**
 * The blocking driver: runs the core's decisions on the caller's thread (park and
 * unpark), its local lines of waiters, handles, the watchdog and the holds it renews.
 * Internal: not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.blocking;

import org.jspecify.annotations.NullMarked;
