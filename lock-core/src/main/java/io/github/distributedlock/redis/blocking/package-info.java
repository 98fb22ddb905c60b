/**
 * The blocking template's side of the engine: acquisitions on the caller's thread,
 * handles and renewed holds. Internal: not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.blocking;

import org.jspecify.annotations.NullMarked;
