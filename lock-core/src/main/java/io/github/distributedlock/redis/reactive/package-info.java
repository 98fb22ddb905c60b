/**
 * The reactive template's side of the engine: acquisitions as a {@code Mono}, handles and
 * holds. Internal: not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.reactive;

import org.jspecify.annotations.NullMarked;
