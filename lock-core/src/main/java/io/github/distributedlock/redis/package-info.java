/**
 * The Redis engine: Lua scripts run through Spring Data Redis, and waiting woken by
 * pub/sub, keyspace notifications or polling.
 * {@link io.github.distributedlock.redis.RedisLockTemplate} is the entry point.
 */
@NullMarked
package io.github.distributedlock.redis;

import org.jspecify.annotations.NullMarked;
