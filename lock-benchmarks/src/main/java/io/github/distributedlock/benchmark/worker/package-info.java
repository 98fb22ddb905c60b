/**
 * The worker JVM: one adapter per lock library and the loops that drive them, told what
 * to run over standard input.
 */
@NullMarked
package io.github.distributedlock.benchmark.worker;

import org.jspecify.annotations.NullMarked;
