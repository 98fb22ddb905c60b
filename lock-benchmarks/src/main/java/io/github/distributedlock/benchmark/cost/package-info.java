/**
 * Counts what one acquisition costs Redis: command by command (the scripts and plain
 * commands a client sends, every command each script runs, the keys left behind and the
 * subscriptions) for this project's engine alone (see {@code docs/design/cost.md}), and
 * in instructions redis-server runs, for every library the benchmark compares.
 */
@NullMarked
package io.github.distributedlock.benchmark.cost;

import org.jspecify.annotations.NullMarked;
