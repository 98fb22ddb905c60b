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
 * they spin through and without the JIT compiler threads
 * @param jitCpuNanos CPU time the worker processes' JIT compiler threads used
 */
record PhaseResult(long startNanos, long endNanos, List<Acquisition> acquisitions, long reported, long timeouts,
		long errors, long clientCpuNanos, long jitCpuNanos) {

	/**
	 * Return the workers' CPU time per reported acquisition, in microseconds.
	 */
	double clientCpuMicros() {
		return perAcquisition(this.clientCpuNanos);
	}

	/**
	 * Return the workers' JIT compiler CPU time per reported acquisition, in
	 * microseconds.
	 */
	double jitCpuMicros() {
		return perAcquisition(this.jitCpuNanos);
	}

	private double perAcquisition(long nanos) {
		return nanos / 1e3 / Math.max(1, this.reported);
	}

}
