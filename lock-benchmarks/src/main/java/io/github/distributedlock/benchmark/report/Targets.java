package io.github.distributedlock.benchmark.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

import io.github.distributedlock.benchmark.Library;

/**
 * The performance targets of issues 5 and 25, judged on the measured figures. Command
 * targets count client-issued commands (round trips), because every script also runs
 * several commands inside Redis.
 */
public final class Targets {

	private Targets() {
	}

	/**
	 * Judge every target.
	 * @param results the results
	 * @return one verdict per target and, for contended targets, per process count
	 */
	public static List<Verdict> evaluate(BenchmarkResults results) {
		List<Verdict> verdicts = new ArrayList<>();
		Optional<UncontendedResult> ours = uncontended(results, Library.THIS_PROJECT);
		Optional<UncontendedResult> floor = uncontended(results, Library.FLOOR);
		for (ContendedShape shape : List.of(ContendedShape.TWO_PROCESSES, ContendedShape.FOUR_PROCESSES)) {
			int processes = shape.processes();
			Optional<ContendedResult> contended = contended(results, Library.THIS_PROJECT, shape);
			Optional<ContendedResult> redisson = contended(results, Library.REDISSON, shape);
			if (contended.isEmpty()) {
				continue;
			}
			ContendedResult us = contended.get();
			floor.ifPresent((f) -> verdicts
				.add(verdict("contended hand-off p50 ≤ 2× the floor's 2 round trips (" + processes + " processes)",
						us.handoffGap().p50Micros(), 2 * f.acquireRelease().p50Micros(), "%.0f µs", true)));
			redisson.ifPresent(
					(r) -> verdicts.add(verdict("contended throughput ≥ 2.5× Redisson's (" + processes + " processes)",
							us.acquisitionsPerSecond(), 2.5 * r.acquisitionsPerSecond(), "%.0f/s", false)));
			bestPeerP99(results, shape).ifPresent(
					(p99) -> verdicts.add(verdict("hand-off p99 ≤ ½ the best peer's (" + processes + " processes)",
							us.handoffGap().p99Micros(), p99 / 2, "%.0f µs", true)));
			verdicts.add(verdict("≤ 5 round trips per contended acquisition (" + processes + " processes)",
					us.commands().roundTrips(), 5, "%.2f", true));
		}
		ContendedShape threads = ContendedShape.TWO_PROCESSES_EIGHT_THREADS;
		contended(results, Library.THIS_PROJECT, threads).ifPresent((us) -> bestPeerRate(results, threads).ifPresent(
				(rate) -> verdicts.add(verdict("contended throughput ≥ 2× the best peer's (" + threads.describe() + ")",
						us.acquisitionsPerSecond(), 2 * rate, "%.0f/s", false))));
		ours.ifPresent((us) -> verdicts.add(verdict("≤ 2 round trips per uncontended acquire+release",
				us.commands().roundTrips(), 2, "%.2f", true)));
		if (ours.isPresent() && floor.isPresent()) {
			verdicts.add(verdict("uncontended p50 ≤ 1.15× the floor", ours.get().acquireRelease().p50Micros(),
					1.15 * floor.get().acquireRelease().p50Micros(), "%.0f µs", true));
		}
		return verdicts;
	}

	private static Verdict verdict(String target, double measured, double limit, String format, boolean atMost) {
		boolean pass = atMost ? measured <= limit : measured >= limit;
		String text = String.format(Locale.ROOT, format, measured) + (atMost ? " vs limit " : " vs needed ")
				+ String.format(Locale.ROOT, format, limit);
		return new Verdict(target, text, pass && Double.isFinite(measured));
	}

	private static Optional<Double> bestPeerP99(BenchmarkResults results, ContendedShape shape) {
		return results.contended()
			.stream()
			.filter((r) -> r.shape().equals(shape) && r.library().isPeer())
			.map((r) -> r.handoffGap().p99Micros())
			.filter(Double::isFinite)
			.min(Double::compare);
	}

	private static Optional<Double> bestPeerRate(BenchmarkResults results, ContendedShape shape) {
		return results.contended()
			.stream()
			.filter((r) -> r.shape().equals(shape) && r.library().isPeer())
			.map(ContendedResult::acquisitionsPerSecond)
			.filter(Double::isFinite)
			.max(Double::compare);
	}

	private static Optional<UncontendedResult> uncontended(BenchmarkResults results, Library library) {
		return results.uncontended().stream().filter((r) -> r.library() == library).findFirst();
	}

	private static Optional<ContendedResult> contended(BenchmarkResults results, Library library,
			ContendedShape shape) {
		Predicate<ContendedResult> match = (r) -> r.library() == library && r.shape().equals(shape);
		return results.contended().stream().filter(match).findFirst();
	}

}
