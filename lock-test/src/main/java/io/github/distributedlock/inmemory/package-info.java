/**
 * An in-memory {@link io.github.distributedlock.LockTemplate} for unit tests: the
 * semantics of the Redis engine within one JVM, without Redis.
 */
@NullMarked
package io.github.distributedlock.inmemory;

import org.jspecify.annotations.NullMarked;
