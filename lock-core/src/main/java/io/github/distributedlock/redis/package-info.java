/**
 * The Redis engine: Lua scripts run through Spring Data Redis.
 * {@link io.github.distributedlock.redis.RedisLockTemplate} and
 * {@link io.github.distributedlock.redis.ReactiveRedisLockTemplate} are the entry points.
 * Their engine is layered in internal subpackages, each using only those below it:
 * {@code core} (the decisions, with no I/O), {@code script} (the Lua scripts and their
 * calls), {@code server} (the adapters to Spring Data Redis), {@code driver} (the one
 * driver of an acquisition, over a port), and the two templates' sides, {@code blocking}
 * and {@code reactive}.
 */
@NullMarked
package io.github.distributedlock.redis;

import org.jspecify.annotations.NullMarked;
