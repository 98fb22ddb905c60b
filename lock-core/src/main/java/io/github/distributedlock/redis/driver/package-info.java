/**
 * The driver: carries out the core's decisions for one acquisition over a
 * {@link io.github.distributedlock.redis.driver.LockPort}. Both templates and the
 * simulation run it, each on a port of its own (see docs/design/driver.md). Internal: may
 * change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.driver;

import org.jspecify.annotations.NullMarked;
