/**
 * The adapters to Spring Data Redis: the script runner, what the engine knows of its
 * Redis, its listener container and listeners, the count of its replicas; and the
 * resolution of requests. Internal: not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.server;

import org.jspecify.annotations.NullMarked;
