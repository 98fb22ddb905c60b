/**
 * A WebFlux application whose handlers call a reactive {@code @DistributedLock} method,
 * run in several JVMs against one redis-server by the integration tests.
 */
@NullMarked
package io.github.distributedlock.webflux;

import org.jspecify.annotations.NullMarked;
