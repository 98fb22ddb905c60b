/**
 * The {@code distributedlocks} actuator endpoint.
 */
@NullMarked
package io.github.distributedlock.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
