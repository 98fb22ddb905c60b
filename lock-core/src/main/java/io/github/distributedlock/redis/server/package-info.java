/**
 * What the engine knows of the Redis it talks to (a Cluster or not, keyspace
 * notifications), the listener container it is woken through, the lock listeners, and the
 * resolution of a request into the spec an acquisition runs on. Internal: not an API; may
 * change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.server;

import org.jspecify.annotations.NullMarked;
