/**
 * The driver: carries out the core's decisions for one acquisition over a
 * {@link io.github.distributedlock.redis.driver.LockPort} (run a script, listen, set a
 * timer, read the clock), with its local lines of waiters. Both templates run it, each on
 * a port of its own, and the simulation on a deterministic port. Internal: not an API;
 * may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.driver;

import org.jspecify.annotations.NullMarked;
