/**
 * A small deployment service that shows how to use the distributed lock starter.
 */
@NullMarked
package io.github.distributedlock.sample;

import org.jspecify.annotations.NullMarked;
