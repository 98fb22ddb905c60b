/**
 * Micrometer instrumentation: an {@link io.micrometer.observation.Observation} around
 * locked work ({@link io.github.distributedlock.observation.ObservedLockTemplate}), and
 * meters fed by the engine's {@link io.github.distributedlock.LockListener} hook.
 */
@NullMarked
package io.github.distributedlock.observation;

import org.jspecify.annotations.NullMarked;
