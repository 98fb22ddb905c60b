/**
 * The reactive template's side of the engine: runs the driver's acquisitions as a
 * {@code Mono} over its port ({@code ReactorLockPort}), its handles and holds. Internal:
 * not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.reactive;

import org.jspecify.annotations.NullMarked;
