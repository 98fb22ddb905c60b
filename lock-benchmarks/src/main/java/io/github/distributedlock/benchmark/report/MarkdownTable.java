package io.github.distributedlock.benchmark.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import io.github.distributedlock.benchmark.Library;

/**
 * A Markdown table with one row per library, whose figures also show their ratio to the
 * floor and to the best peer: {@code 212 µs (1.07× / 0.61×)}.
 *
 * @param <R> the row type
 */
final class MarkdownTable<R> {

	private final List<R> rows;

	private final Function<R, Library> library;

	private final List<String> headers = new ArrayList<>();

	private final List<Function<R, String>> cells = new ArrayList<>();

	MarkdownTable(List<R> rows, Function<R, Library> library) {
		this.rows = rows;
		this.library = library;
		this.headers.add("library");
		this.cells.add((row) -> library.apply(row).title());
	}

	/**
	 * Add a figure with its ratios.
	 * @param lowerIsBetter whether the best peer is the one with the lowest value
	 */
	MarkdownTable<R> figure(String header, ToDoubleFunction<R> metric, String format, boolean lowerIsBetter) {
		OptionalDouble floor = this.rows.stream()
			.filter((row) -> this.library.apply(row) == Library.FLOOR)
			.mapToDouble(metric)
			.filter(Double::isFinite)
			.findFirst();
		OptionalDouble peer = best(metric, lowerIsBetter);
		this.headers.add(header);
		this.cells.add((row) -> {
			double value = metric.applyAsDouble(row);
			if (!Double.isFinite(value)) {
				return "—";
			}
			return String.format(Locale.ROOT, format, value) + " (" + ratio(value, floor) + " / " + ratio(value, peer)
					+ ")";
		});
		return this;
	}

	/**
	 * Add the five columns of what a library cost Redis, with their ratios.
	 */
	MarkdownTable<R> cost(Function<R, RedisCost> cost) {
		return figure("Redis CPU / acq. (main thread)", (r) -> cost.apply(r).cpuMicros(), "%.0f µs", true)
			.figure("Redis commands / acq.", (r) -> cost.apply(r).commands(), "%.2f", true)
			.figure("keys left / name", (r) -> cost.apply(r).keysLeftPerName(), "%.2f", true)
			.figure("bytes left / name", (r) -> cost.apply(r).bytesLeftPerName(), "%.0f B", true)
			.figure("bytes / held lock", (r) -> cost.apply(r).bytesPerHeldLock(), "%.0f B", true);
	}

	/**
	 * Add a column without ratios.
	 */
	MarkdownTable<R> text(String header, Function<R, String> cell) {
		this.headers.add(header);
		this.cells.add(cell);
		return this;
	}

	String render() {
		StringBuilder table = new StringBuilder();
		table.append("| ").append(String.join(" | ", this.headers)).append(" |\n");
		table.append("|").append(" --- |".repeat(this.headers.size())).append("\n");
		for (R row : this.rows) {
			List<String> values = new ArrayList<>();
			for (Function<R, String> cell : this.cells) {
				values.add(cell.apply(row));
			}
			table.append("| ").append(String.join(" | ", values)).append(" |\n");
		}
		return table.toString();
	}

	private OptionalDouble best(ToDoubleFunction<R> metric, boolean lowerIsBetter) {
		double[] peers = this.rows.stream()
			.filter((row) -> this.library.apply(row).isPeer())
			.mapToDouble(metric)
			.filter(Double::isFinite)
			.toArray();
		if (peers.length == 0) {
			return OptionalDouble.empty();
		}
		double best = peers[0];
		for (double value : peers) {
			best = lowerIsBetter ? Math.min(best, value) : Math.max(best, value);
		}
		return OptionalDouble.of(best);
	}

	/**
	 * Return the ratio, or a dash where it would mislead: a reference of zero or less, or
	 * a negative value (a crash-recovery delay can be slightly negative).
	 */
	private static String ratio(double value, OptionalDouble reference) {
		if (reference.isEmpty() || reference.getAsDouble() <= 0 || value < 0) {
			return "—";
		}
		return String.format(Locale.ROOT, "%.2f×", value / reference.getAsDouble());
	}

}
