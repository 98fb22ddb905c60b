/**
 * The blocking template's side of the engine: runs the driver's acquisitions on the
 * caller's thread ({@code CallerWait}, {@code CallerRunsPort}) over the template's port,
 * its handles, the watchdog and the holds it renews. Internal: not an API; may change in
 * any release.
 */
@NullMarked
package io.github.distributedlock.redis.blocking;

import org.jspecify.annotations.NullMarked;
