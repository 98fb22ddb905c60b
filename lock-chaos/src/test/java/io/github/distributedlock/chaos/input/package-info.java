/**
 * Bad input and a troubled Redis: odd or huge names, absurd durations, huge multi-locks,
 * and a Redis that is down, stalled or out of memory. Each must give a clear exception
 * that names the lock, or a documented safe mapping.
 */
@NullMarked
package io.github.distributedlock.chaos.input;

import org.jspecify.annotations.NullMarked;
