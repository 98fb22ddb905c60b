/**
 * The engine's decisions, with no I/O: what a request resolves to, what an attempt
 * carries and what its reply means, the steps of a wait, deadlines, grants, what a line
 * of waiters heard, key names. Reads time only through a
 * {@link io.github.distributedlock.redis.core.NanoClock}. Imports nothing of Spring Data
 * Redis or Reactor. Internal: not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.core;

import org.jspecify.annotations.NullMarked;
