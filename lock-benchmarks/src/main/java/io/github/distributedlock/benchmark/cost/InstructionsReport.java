package io.github.distributedlock.benchmark.cost;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.github.distributedlock.benchmark.Library;

/**
 * The table of {@code lock-benchmarks/instructions.sh}: redis-server's instructions per
 * uncontended acquire and release for each library, as the difference between a run of
 * many pairs and a run of fewer, so that startup, connection setup and warm-up cancel
 * out.
 */
final class InstructionsReport {

	private InstructionsReport() {
	}

	/**
	 * Write the table and what it counts.
	 * @param small pairs counted in the shorter run
	 * @param large pairs counted in the longer run
	 * @param warmUp pairs each run made before those
	 * @param libraries the totals, in report order
	 * @return the markdown
	 */
	static String markdown(int small, int large, int warmUp, List<Totals> libraries) {
		Optional<Double> floor = perPair(libraries, Library.FLOOR, small, large);
		Optional<Double> spring = perPair(libraries, Library.SPRING_INTEGRATION, small, large);
		StringBuilder table = new StringBuilder();
		table.append("| library | Redis instructions per acquire+release | ratio to the floor "
				+ "| ratio to RedisLockRegistry |\n");
		table.append("| --- | ---: | ---: | ---: |\n");
		for (Totals totals : libraries) {
			double perPair = totals.perPair(small, large);
			table.append("| ")
				.append(totals.library().title())
				.append(" | ")
				.append(String.format(Locale.ROOT, "%,.0f", perPair))
				.append(" | ")
				.append(ratio(perPair, floor))
				.append(" | ")
				.append(ratio(perPair, spring))
				.append(" |\n");
		}
		return table + "\nEach figure is (Ir(" + large + ") − Ir(" + small + ")) / " + (large - small)
				+ ": the instructions redis-server ran (callgrind's `Ir`, user space only, every thread) in a run of "
				+ large + " pairs less those of a run of " + small + ", each on a fresh server after the same " + warmUp
				+ " pairs to warm up, one thread, a new lock name each time (scenario 1). "
				+ "`serverCron` is not counted, since how often it runs depends on the clock, not on the locks. "
				+ "The kernel's share of each round trip (read, write, epoll) is not counted either. Machine load "
				+ "does not change the counts; each server's random hash seed moves them by up to about 1%.\n";
	}

	private static Optional<Double> perPair(List<Totals> libraries, Library library, int small, int large) {
		return libraries.stream()
			.filter((totals) -> totals.library() == library)
			.findFirst()
			.map((totals) -> totals.perPair(small, large));
	}

	private static String ratio(double perPair, Optional<Double> reference) {
		return reference.map((value) -> String.format(Locale.ROOT, "%.2f×", perPair / value)).orElse("–");
	}

	/**
	 * A library's instruction totals of the two runs.
	 *
	 * @param library the library
	 * @param smallRun instructions of the server that served the shorter run
	 * @param largeRun instructions of the server that served the longer run
	 */
	record Totals(Library library, long smallRun, long largeRun) {

		/**
		 * Parse {@code LIBRARY=IR_SMALL,IR_LARGE}, as the script passes it.
		 * @param text the text
		 * @return the totals
		 * @throws IllegalArgumentException if the text has another form
		 */
		static Totals parse(String text) {
			String[] parts = text.split("[=,]");
			if (parts.length != 3) {
				throw new IllegalArgumentException("Expected LIBRARY=IR_SMALL,IR_LARGE, got '" + text + "'");
			}
			return new Totals(Library.ofId(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
		}

		double perPair(int small, int large) {
			return (double) (this.largeRun - this.smallRun) / (large - small);
		}

	}

}
