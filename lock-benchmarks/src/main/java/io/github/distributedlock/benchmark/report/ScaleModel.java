package io.github.distributedlock.benchmark.report;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

import io.github.distributedlock.benchmark.Library;

/**
 * How far one Redis shard goes for each library, worked out from the measured costs:
 * acquisitions per second until the main thread is always busy, locks held per GiB, and
 * what scenario 6 measured on one master and on three.
 */
final class ScaleModel {

	private static final double GIB = 1024.0 * 1024 * 1024;

	private ScaleModel() {
	}

	static String render(BenchmarkResults results) {
		StringBuilder md = new StringBuilder();
		md.append(
				"""
						One Redis shard runs every command on one main thread, so its ceiling is \
						`1,000,000 µs / Redis CPU µs per acquisition` acquisitions per second: the rate at which that \
						thread is never idle. It counts the main thread's CPU only (`used_cpu_*_main_thread`), which with the default \
						`io-threads 1` includes reading requests and writing replies; it leaves out every other client of the \
						shard, background threads and the headroom a shard needs for latency (plan for at most half the \
						ceiling). Memory: what each held lock takes, and what a lock name leaves behind after its release, \
						which adds up over every name ever locked.

						""");
		md.append("| library | ceiling, uncontended | ceiling, 2 processes on one key | ceiling, many keys "
				+ "| bytes / held lock | held locks per GiB | keys left / name | bytes left / name "
				+ "| many keys on Cluster, 1 → 3 masters |\n");
		md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
		for (Library library : Library.compared()) {
			Optional<UncontendedResult> uncontended = find(results.uncontended(), library, UncontendedResult::library);
			Optional<ContendedResult> contended = results.contended()
				.stream()
				.filter((r) -> r.library() == library && r.shape().equals(ContendedShape.TWO_PROCESSES))
				.findFirst();
			Optional<ManyKeysResult> manyKeys = find(results.manyKeys(), library, ManyKeysResult::library);
			double heldBytes = uncontended.map((r) -> r.cost().bytesPerHeldLock()).orElse(Double.NaN);
			md.append("| ").append(library.title());
			md.append(" | ").append(perSecond(uncontended.map((r) -> r.cost().shardCeilingPerSecond())));
			md.append(" | ").append(perSecond(contended.map((r) -> r.cost().shardCeilingPerSecond())));
			md.append(" | ").append(perSecond(manyKeys.map((r) -> r.cost().shardCeilingPerSecond())));
			md.append(" | ").append(format("%.0f B", heldBytes));
			md.append(" | ").append((heldBytes > 0) ? format("%,.0f", GIB / heldBytes) : "—");
			Optional<RedisCost> memory = uncontended.map(UncontendedResult::cost);
			md.append(" | ").append(format("%.2f", memory.map(RedisCost::keysLeftPerName).orElse(Double.NaN)));
			md.append(" | ").append(format("%.0f B", memory.map(RedisCost::bytesLeftPerName).orElse(Double.NaN)));
			md.append(" | ").append(clusterGrowth(results.cluster(), library)).append(" |\n");
		}
		md.append("""

				Ceilings use scenario 1 (a new name each time), scenario 2 with 2 processes and scenario 3; memory \
				uses scenario 1. Move to Redis Cluster when the busiest shard's planned peak passes about half its \
				ceiling, or when held locks plus what names leave behind approach its memory: names spread over the \
				masters by hash slot, so many names scale with the masters, while one hot name stays on one master \
				and does not.
				""");
		return md.toString();
	}

	private static String clusterGrowth(List<ClusterResult> cluster, Library library) {
		Optional<ClusterResult> one = cluster.stream()
			.filter((r) -> r.library() == library && r.masters() == 1)
			.findFirst();
		Optional<ClusterResult> three = cluster.stream()
			.filter((r) -> r.library() == library && r.masters() == 3)
			.findFirst();
		if (one.isEmpty() || three.isEmpty() || one.get().acquisitionsPerSecond() <= 0) {
			return "—";
		}
		return format("%,.0f", one.get().acquisitionsPerSecond()) + " → "
				+ format("%,.0f", three.get().acquisitionsPerSecond()) + "/s ("
				+ format("%.2f×", three.get().acquisitionsPerSecond() / one.get().acquisitionsPerSecond()) + ")";
	}

	private static <R> Optional<R> find(List<R> results, Library library, Function<R, Library> of) {
		return results.stream().filter((r) -> of.apply(r) == library).findFirst();
	}

	private static String perSecond(Optional<Double> value) {
		return value.filter(Double::isFinite).map((v) -> format("%,.0f/s", v)).orElse("—");
	}

	private static String format(String format, double value) {
		return Double.isFinite(value) ? String.format(Locale.ROOT, format, value) : "—";
	}

}
