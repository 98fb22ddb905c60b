package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import io.github.distributedlock.benchmark.report.LatencyStats;

/**
 * Figures computed from the acquisitions of all workers together: latencies, throughput,
 * overlaps and hand-offs.
 */
final class AcquisitionAnalysis {

	private AcquisitionAnalysis() {
	}

	static LatencyStats latency(List<Acquisition> acquisitions, ToLongFunction<Acquisition> duration) {
		return LatencyStats.ofNanos(acquisitions.stream().mapToLong(duration).toArray());
	}

	/**
	 * Return acquisitions per second, counting those whose acquire returned within the
	 * phase's window.
	 */
	static double perSecond(PhaseResult phase) {
		long inWindow = phase.acquisitions()
			.stream()
			.filter((a) -> a.acquired() - phase.startNanos() >= 0 && a.acquired() - phase.endNanos() < 0)
			.count();
		return inWindow / ((phase.endNanos() - phase.startNanos()) / 1e9);
	}

	/**
	 * Walk each key's holds in acquisition order: an acquisition that returned before an
	 * earlier hold's release call began is an overlap, and the time from the previous
	 * holder's release call to the next holder's acquisition is a hand-off gap when the
	 * holder changed. A succession stays local when the next holder runs in the same
	 * worker process as the previous one; otherwise the next holder took the key across
	 * processes, and its acquire wait is a remote wait.
	 */
	static Handoffs handoffs(List<Acquisition> acquisitions) {
		Map<Integer, List<Acquisition>> byKey = new HashMap<>();
		for (Acquisition acquisition : acquisitions) {
			if (acquisition.key() != Acquisition.UNIQUE_KEY) {
				byKey.computeIfAbsent(acquisition.key(), (key) -> new ArrayList<>()).add(acquisition);
			}
		}
		long overlaps = 0;
		long successions = 0;
		long local = 0;
		List<Long> gaps = new ArrayList<>();
		List<Long> remoteWaits = new ArrayList<>();
		for (List<Acquisition> holds : byKey.values()) {
			holds.sort(Comparator.comparingLong(Acquisition::acquired));
			long lastReleasing = Long.MIN_VALUE;
			Acquisition previous = null;
			for (Acquisition hold : holds) {
				if (previous != null) {
					successions++;
					if (hold.acquired() - lastReleasing < 0) {
						overlaps++;
					}
					if (hold.holder() != previous.holder()) {
						gaps.add(hold.acquired() - previous.releasing());
					}
					if (hold.worker() == previous.worker()) {
						local++;
					}
					else {
						remoteWaits.add(hold.acquired() - hold.requested());
					}
				}
				lastReleasing = (previous == null || hold.releasing() - lastReleasing > 0) ? hold.releasing()
						: lastReleasing;
				previous = hold;
			}
		}
		long[] gapNanos = gaps.stream().mapToLong(Long::longValue).toArray();
		double share = (successions > 0) ? (double) gapNanos.length / successions : 0;
		double localShare = (successions > 0) ? (double) local / successions : Double.NaN;
		return new Handoffs(overlaps, LatencyStats.ofNanos(gapNanos), share, localShare,
				LatencyStats.ofNanos(remoteWaits.stream().mapToLong(Long::longValue).toArray()));
	}

	/**
	 * What {@link #handoffs(List)} found.
	 *
	 * @param overlaps acquisitions that began before an earlier hold of the same key
	 * ended
	 * @param gaps hand-off gaps between different holders
	 * @param share the share of successions that changed holder
	 * @param localShare the share of successions whose next holder ran in the same worker
	 * process as the previous one (the same thread included), {@code NaN} without
	 * successions
	 * @param remoteWait the acquire waits (acquire call to its return) of the
	 * acquisitions that took a key from a holder in another process,
	 * {@link LatencyStats#NONE} when there were none
	 */
	record Handoffs(long overlaps, LatencyStats gaps, double share, double localShare, LatencyStats remoteWait) {

	}

}
