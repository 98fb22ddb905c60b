package io.github.distributedlock.benchmark.cost;

import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.ContendedPairs;
import io.github.distributedlock.benchmark.worker.UncontendedPairs;

/**
 * The Java half of {@code lock-benchmarks/instructions.sh}, which counts the instructions
 * redis-server runs per uncontended acquire and release under
 * {@code valgrind --tool=callgrind}. Two commands:
 * <ul>
 * <li>{@code pairs PORT LIBRARY WARM_UP PAIRS}: drive a library's benchmark client on the
 * server at {@code 127.0.0.1:PORT}, one thread, a new lock name each time, as scenario 1
 * does: {@code WARM_UP} pairs, then {@code PAIRS} more.</li>
 * <li>{@code contended PORT LIBRARY WARM_UP PAIRS}: the same, but two clients of the
 * library, each with connections of its own, take turns on one lock name, each from a
 * thread of its own, as scenario 2 does with 2 processes: {@code WARM_UP} pairs each,
 * then {@code PAIRS / 2} more each.</li>
 * <li>{@code contended-local PORT LIBRARY WARM_UP PAIRS}: the same, but both threads
 * share one client, as threads of one process do.</li>
 * <li>{@code report OUT SMALL LARGE WARM_UP HEADER LIBRARY=IR_SMALL,IR_LARGE...}: from
 * the server's instruction totals of a run of {@code SMALL} pairs and one of
 * {@code LARGE} pairs per library, write the table to {@code OUT} and standard output;
 * arguments {@code LIBRARY:FUNCTION=IR_SMALL,IR_LARGE} give a function's instructions,
 * its callees included, for the table of where they go; {@code report-contended} writes
 * the same for {@code contended} runs, {@code report-contended-local} for
 * {@code contended-local} runs.</li>
 * </ul>
 */
public final class RedisInstructionsMain {

	private static final String HOST = "127.0.0.1";

	private RedisInstructionsMain() {
	}

	public static void main(String[] args) throws InterruptedException {
		if (args.length == 5 && args[0].equals("pairs")) {
			pairs(Integer.parseInt(args[1]), Library.ofId(args[2]), Integer.parseInt(args[3]),
					Integer.parseInt(args[4]));
		}
		else if (args.length == 5 && (args[0].equals("contended") || args[0].equals("contended-local"))) {
			contended(Integer.parseInt(args[1]), Library.ofId(args[2]), Integer.parseInt(args[3]),
					Integer.parseInt(args[4]), args[0].equals("contended-local"));
		}
		else if (args.length >= 6 && args[0].startsWith("report")) {
			InstructionsReport.Workload workload = switch (args[0]) {
				case "report" -> InstructionsReport.Workload.PAIRS;
				case "report-contended" -> InstructionsReport.Workload.CONTENDED;
				case "report-contended-local" -> InstructionsReport.Workload.CONTENDED_LOCAL;
				default -> throw new IllegalArgumentException("Unknown report " + args[0]);
			};
			report(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
					args[5], Arrays.asList(args).subList(6, args.length), workload);
		}
		else {
			throw new IllegalArgumentException("Expected 'pairs PORT LIBRARY WARM_UP PAIRS', "
					+ "'contended[-local] PORT LIBRARY WARM_UP PAIRS' or "
					+ "'report[-contended[-local]] OUT SMALL LARGE WARM_UP HEADER LIBRARY=IR_SMALL,IR_LARGE...', got "
					+ Arrays.toString(args));
		}
		// Library threads (Redisson's, Lettuce's) must not keep the JVM alive.
		System.exit(0);
	}

	private static void pairs(int port, Library library, int warmUp, int pairs) throws InterruptedException {
		try (UncontendedPairs workload = new UncontendedPairs(HOST, port, library)) {
			workload.run(warmUp);
			workload.run(pairs);
		}
	}

	private static void contended(int port, Library library, int warmUp, int pairs, boolean oneProcess)
			throws InterruptedException {
		try (ContendedPairs workload = new ContendedPairs(HOST, port, library, oneProcess)) {
			workload.run(warmUp);
			workload.run(pairs / 2);
		}
	}

	private static void report(Path out, int small, int large, int warmUp, String header, List<String> totals,
			InstructionsReport.Workload workload) {
		List<InstructionsReport.Totals> libraries = new ArrayList<>();
		List<InstructionsReport.Part> parts = new ArrayList<>();
		for (String entry : totals) {
			if (InstructionsReport.Part.isPart(entry)) {
				parts.add(InstructionsReport.Part.parse(entry));
			}
			else {
				libraries.add(InstructionsReport.Totals.parse(entry));
			}
		}
		String report = "# Redis instructions per acquisition" + switch (workload) {
			case PAIRS -> "";
			case CONTENDED -> ", contended";
			case CONTENDED_LOCAL -> ", contended inside one process";
		} + "\n\n" + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ", " + header
				+ ". Written by `lock-benchmarks/instructions.sh` (`RedisInstructionsMain`).\n\n"
				+ InstructionsReport.markdown(small, large, warmUp, libraries, parts, workload);
		CommandCostMain.writeReport(out, report);
	}

}
