/**
 * Turns scenario results into the Markdown report, the SVG chart and the PASS/MISS
 * verdicts on the targets.
 */
@NullMarked
package io.github.distributedlock.benchmark.report;

import org.jspecify.annotations.NullMarked;
