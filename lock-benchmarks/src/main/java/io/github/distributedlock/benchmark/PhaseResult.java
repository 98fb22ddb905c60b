package io.github.distributedlock.benchmark;

import java.util.List;

/**
 * What the workers did in one timed phase.
 *
 * @param startNanos when the phase started
 * @param endNanos when it stopped starting acquisitions
 * @param acquisitions every recorded acquisition, empty when not recorded
 * @param reported acquisitions the workers reported, recorded or not
 * @param timeouts acquisitions that timed out
 * @param errors calls that threw
 */
record PhaseResult(long startNanos, long endNanos, List<Acquisition> acquisitions, long reported, long timeouts,
		long errors) {

}
