package io.github.distributedlock.chaos;

import org.jspecify.annotations.Nullable;

/**
 * One fault the test injected, with what the checker needs to judge the run around it.
 *
 * @param kind the kind, such as {@code kill-9 holder} or {@code redis restart}
 * @param startNanos when it began
 * @param endNanos when it was over (healed, resumed, restarted); recovery is measured
 * from here
 * @param losesData whether Redis may have lost acknowledged writes (a restart without
 * persistence, a failover): overlaps of holds that span it are lost with the data, not by
 * lease expiry
 * @param holdId the hold it targeted (a killed or frozen holder), whose key must be
 * acquired again by others within its lease plus a margin, or {@code null}
 * @param worker the worker it isolated (a partition), whose recovery is its own next
 * acquisition, or {@code null}
 */
record Fault(String kind, long startNanos, long endNanos, boolean losesData, @Nullable String holdId,
		@Nullable String worker) {

	static Fault of(String kind, long startNanos, long endNanos) {
		return new Fault(kind, startNanos, endNanos, false, null, null);
	}

	static Fault losingData(String kind, long startNanos, long endNanos) {
		return new Fault(kind, startNanos, endNanos, true, null, null);
	}

	static Fault onHold(String kind, long startNanos, long endNanos, String holdId) {
		return new Fault(kind, startNanos, endNanos, false, holdId, null);
	}

	static Fault onWorker(String kind, long startNanos, long endNanos, String worker) {
		return new Fault(kind, startNanos, endNanos, false, null, worker);
	}

}
