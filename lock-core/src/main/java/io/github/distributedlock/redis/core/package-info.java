/**
 * The engine's decisions, with no I/O: requests, attempts and replies, waits, deadlines,
 * grants, key names. Reads time only through a
 * {@link io.github.distributedlock.redis.core.NanoClock}; imports nothing of Spring Data
 * Redis or Reactor. Internal: may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.core;

import org.jspecify.annotations.NullMarked;
