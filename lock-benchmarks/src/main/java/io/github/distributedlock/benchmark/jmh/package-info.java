/**
 * JMH microbenchmarks of in-process hot paths: key building, request building and
 * template overhead.
 */
@NullMarked
package io.github.distributedlock.benchmark.jmh;

import org.jspecify.annotations.NullMarked;
