/**
 * The answer of Spring MVC and WebFlux applications to a lock that was not acquired in
 * time.
 */
@NullMarked
package io.github.distributedlock.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
