/**
 * Security: unguessable owners, a Redis ACL user restricted to the library's prefix and
 * minimal commands, and TLS.
 */
@NullMarked
package io.github.distributedlock.chaos.security;

import org.jspecify.annotations.NullMarked;
