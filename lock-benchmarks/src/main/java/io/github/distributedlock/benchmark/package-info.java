/**
 * Compares this project's engine with Redisson, Spring Integration and a plain
 * {@code SET NX} floor on one redis-server, driving worker JVMs and writing a Markdown
 * report and an SVG chart.
 */
@NullMarked
package io.github.distributedlock.benchmark;

import org.jspecify.annotations.NullMarked;
