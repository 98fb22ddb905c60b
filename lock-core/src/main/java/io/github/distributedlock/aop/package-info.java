/**
 * The {@link io.github.distributedlock.DistributedLock @DistributedLock} aspect: a Spring
 * AOP advisor and method interceptor, SpEL lock keys, timeout handling, and the checks
 * that run on every annotated method when the application context starts.
 */
@NullMarked
package io.github.distributedlock.aop;

import org.jspecify.annotations.NullMarked;
