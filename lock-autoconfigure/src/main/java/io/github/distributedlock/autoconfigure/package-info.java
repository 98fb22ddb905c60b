/**
 * Spring Boot auto-configuration for distributed locks: the Redis lock template, the
 * {@code @DistributedLock} aspect, metrics and observations, and the actuator endpoint.
 */
@NullMarked
package io.github.distributedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
