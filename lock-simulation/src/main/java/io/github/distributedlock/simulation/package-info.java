/**
 * A deterministic simulation of the lock protocol: a model of Redis that runs the
 * engine's own Lua scripts on an embedded Lua VM, on a virtual clock, with the ways Redis
 * misbehaves (stalls, failovers that lose writes, evictions) as operations.
 */
@NullMarked
package io.github.distributedlock.simulation;

import org.jspecify.annotations.NullMarked;
