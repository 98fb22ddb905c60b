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
 * @param clientCpuNanos CPU time the worker processes used, without the critical sections
 * they spin through
 */
record PhaseResult(long startNanos, long endNanos, List<Acquisition> acquisitions, long reported, long timeouts,
		long errors, long clientCpuNanos) {

	/**
	 * Return the workers' CPU time per reported acquisition, in microseconds.
	 */
	double clientCpuMicros() {
		return this.clientCpuNanos / 1e3 / Math.max(1, this.reported);
	}

}
