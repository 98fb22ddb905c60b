package io.github.distributedlock.benchmark.cost;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

import io.github.distributedlock.benchmark.Library;

/**
 * The table of {@code lock-benchmarks/instructions.sh}: redis-server's instructions per
 * uncontended acquire and release for each library, as the difference between a run of
 * many pairs and a run of fewer, so that startup, connection setup and warm-up cancel
 * out.
 */
final class InstructionsReport {

	private static final String UNCONTENDED = "one thread, a new lock name each time (scenario 1). ";

	private static final String CONTENDED_LOCAL = "two threads sharing one client of the library, as two threads of "
			+ "one process do, taking turns on one lock name with holds of about 100 µs (the hand-offs inside one "
			+ "JVM of scenario 2 with 8 threads); the warm-up's pairs are each thread's, the counted pairs both "
			+ "threads' together. Under valgrind Redis runs tens of times slower, so nearly every acquisition waits "
			+ "for the other thread's release. ";

	private static final String CONTENDED = "two clients of the library with connections of their own, each on a "
			+ "thread of its own, taking turns on one lock name with holds of about 100 µs (scenario 2 with 2 "
			+ "processes); the warm-up's pairs are each client's, the counted pairs both clients' together. Under "
			+ "valgrind Redis runs tens of times slower, so nearly every acquisition waits for the other client's "
			+ "release: the mix of paths is the contended one, and a library that polls polls more. ";

	private static final String FENCED_FLOOR_NOTE = "The fenced floor is the cheapest lock that keeps what issue 25 "
			+ "keeps and nothing else: uncontended, one script takes the next fencing token, max(last + 1, server "
			+ "time in µs), and sets `<sha1(owner)>:<token>` with `SET NX PX`, and the other releases with `GET`, a "
			+ "comparison and `DEL`; contended, a refused attempt files its request in a line, and a release "
			+ "reserves the lock for the oldest request and tells its waiter, whose own attempt takes it "
			+ "(`fenced-floor-acquire.lua` and `fenced-floor-release.lua` in lock-benchmarks).";

	private static final String ENGINE_FLOOR_NOTE = " The engine floor runs the fenced floor's commands, on a lock "
			+ "kept as one string (`<sha1(owner)>|<token>|<hold>`, `*` after it once a waiter found it taken, "
			+ "`r:<request>|<token>` while reserved), behind the calls this project's engine makes: `FCALL` of a "
			+ "library of functions, 5 keys and the owner, hold id, lease and wait (and a waiter's request, with "
			+ "its claim) to acquire, and to release the owner, token and hold id with the 3 of its 4 keys that "
			+ "Redis requires (the fourth is its channel); a waiter's attempt hashes the owner too, and its line "
			+ "expires 30 s after the last filing (`engine-floor.lua` in lock-benchmarks). No layout of the "
			+ "engine's state costs less while those calls stay.";

	private InstructionsReport() {
	}

	/**
	 * What a run of {@code instructions.sh} did.
	 */
	enum Workload {

		/** One client, one thread, a new lock name each time. */
		PAIRS,

		/** Two clients, a thread each, taking turns on one name. */
		CONTENDED,

		/** Two threads of one client taking turns on one name. */
		CONTENDED_LOCAL

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
		return markdown(small, large, warmUp, libraries, List.of(), Workload.PAIRS);
	}

	/**
	 * Write the table and what it counts, then where each library's instructions go.
	 * @param small pairs counted in the shorter run
	 * @param large pairs counted in the longer run
	 * @param warmUp pairs each run made before those
	 * @param libraries the totals, in report order
	 * @param parts the instructions of the functions in {@link Part#FUNCTIONS}, for the
	 * libraries that have them
	 * @param workload what the runs did
	 * @return the markdown
	 */
	static String markdown(int small, int large, int warmUp, List<Totals> libraries, List<Part> parts,
			Workload workload) {
		Optional<Double> floor = perPair(libraries, Library.FLOOR, small, large);
		Optional<Double> spring = perPair(libraries, Library.SPRING_INTEGRATION, small, large);
		Optional<Double> fenced = perPair(libraries, Library.FENCED_FLOOR, small, large);
		StringBuilder table = new StringBuilder();
		table.append("| library | Redis instructions per acquire+release | ratio to the floor "
				+ "| ratio to RedisLockRegistry | ratio to the fenced floor |\n");
		table.append("| --- | ---: | ---: | ---: | ---: |\n");
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
				.append(" | ")
				.append(ratio(perPair, fenced))
				.append(" |\n");
		}
		return table + "\nEach figure is (Ir(" + large + ") − Ir(" + small + ")) / " + (large - small)
				+ ": the instructions redis-server ran (callgrind's `Ir`, user space only, every thread) in a run of "
				+ large + " pairs less those of a run of " + small + ", each on a fresh server after the same " + warmUp
				+ " pairs to warm up, " + switch (workload) {
					case PAIRS -> UNCONTENDED;
					case CONTENDED -> CONTENDED;
					case CONTENDED_LOCAL -> CONTENDED_LOCAL;
				} + "`serverCron` is not counted, since how often it runs depends on the clock, not on the locks. "
				+ "The kernel's share of each round trip (read, write, epoll) is not counted either. Machine load "
				+ "does not change the counts; each server's random hash seed moves them by up to about 1%."
				+ (fenced.isPresent() ? " " + FENCED_FLOOR_NOTE : "")
				+ (perPair(libraries, Library.ENGINE_FLOOR, small, large).isPresent() ? ENGINE_FLOOR_NOTE : "") + "\n"
				+ breakdown(small, large, libraries, parts);
	}

	/**
	 * The table of where a pair's instructions go, from the instructions of four
	 * functions of redis-server, their callees included: {@code call} (a command), under
	 * it {@code evalGenericCommand} (a script) or {@code fcallCommand} (a function),
	 * under either {@code lua_pcall} (its Lua code) and under that {@code scriptCall} (a
	 * command the script runs).
	 */
	private static String breakdown(int small, int large, List<Totals> libraries, List<Part> parts) {
		List<Totals> split = libraries.stream()
			.filter((totals) -> parts.stream().anyMatch((part) -> part.library() == totals.library()))
			.toList();
		if (split.isEmpty()) {
			return "";
		}
		StringBuilder table = new StringBuilder("\n## Where they go\n\n| per acquire+release |");
		split.forEach((totals) -> table.append(' ').append(totals.library().title()).append(" |"));
		table.append("\n| --- |").append(" ---: |".repeat(split.size())).append('\n');
		row(table, "reading, parsing and dispatching requests, and replying", split,
				(totals) -> totals.perPair(small, large) - part(parts, totals, "call", small, large));
		row(table, "commands sent on their own", split,
				(totals) -> part(parts, totals, "call", small, large) - scripts(parts, totals, small, large));
		row(table, "a script's set-up: its `KEYS` and `ARGV`, its reply, Lua's garbage collector", split,
				(totals) -> scripts(parts, totals, small, large) - part(parts, totals, "lua_pcall", small, large));
		row(table, "the scripts' Lua code (`redis.sha1hex` included)", split,
				(totals) -> part(parts, totals, "lua_pcall", small, large)
						- part(parts, totals, "scriptCall", small, large));
		row(table, "the commands the scripts run (`redis.call`)", split,
				(totals) -> part(parts, totals, "scriptCall", small, large));
		return table + "\nEach row is a difference of two functions' instructions, their callees included "
				+ "(`callgrind_annotate --inclusive=yes`), per pair as above: `call` runs a command, "
				+ "`evalGenericCommand` a script and `fcallCommand` a function (under `call`), `lua_pcall` its Lua "
				+ "code (under either) and "
				+ "`scriptCall` a command the Lua code runs (under that). A function the binary does not name "
				+ "counts 0 (the floor runs no script). The split depends on which functions this build of "
				+ "redis-server inlines, not on the machine's load.\n";
	}

	private static void row(StringBuilder table, String title, List<Totals> libraries,
			ToDoubleFunction<Totals> perPair) {
		table.append("| ").append(title).append(" |");
		libraries.forEach((totals) -> table.append(' ')
			.append(String.format(Locale.ROOT, "%,.0f", perPair.applyAsDouble(totals)))
			.append(" |"));
		table.append('\n');
	}

	/**
	 * A script's instructions, run with {@code EVAL}/{@code EVALSHA} or {@code FCALL}.
	 */
	private static double scripts(List<Part> parts, Totals totals, int small, int large) {
		return part(parts, totals, "evalGenericCommand", small, large)
				+ part(parts, totals, "fcallCommand", small, large);
	}

	private static double part(List<Part> parts, Totals totals, String function, int small, int large) {
		return parts.stream()
			.filter((part) -> part.library() == totals.library() && part.function().equals(function))
			.findFirst()
			.map((part) -> (double) (part.largeRun() - part.smallRun()) / (large - small))
			.orElse(0.0);
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

	/**
	 * The instructions of one function of redis-server, its callees included, in a
	 * library's two runs.
	 *
	 * @param library the library
	 * @param function the function
	 * @param smallRun its instructions in the shorter run
	 * @param largeRun its instructions in the longer run
	 */
	record Part(Library library, String function, long smallRun, long largeRun) {

		/**
		 * The functions the script passes, outermost first.
		 */
		static final List<String> FUNCTIONS = List.of("call", "evalGenericCommand", "fcallCommand", "lua_pcall",
				"scriptCall");

		/**
		 * Whether an argument is a part ({@code LIBRARY:FUNCTION=IR_SMALL,IR_LARGE})
		 * rather than a library's totals.
		 * @param text the argument
		 * @return whether it names a function
		 */
		static boolean isPart(String text) {
			int equals = text.indexOf('=');
			return equals > 0 && text.substring(0, equals).contains(":");
		}

		/**
		 * Parse {@code LIBRARY:FUNCTION=IR_SMALL,IR_LARGE}, as the script passes it.
		 * @param text the text
		 * @return the part
		 * @throws IllegalArgumentException if the text has another form or names another
		 * function
		 */
		static Part parse(String text) {
			String[] parts = text.split("[:=,]");
			if (parts.length != 4 || !FUNCTIONS.contains(parts[1])) {
				throw new IllegalArgumentException("Expected LIBRARY:FUNCTION=IR_SMALL,IR_LARGE with a function of "
						+ FUNCTIONS + ", got '" + text + "'");
			}
			return new Part(Library.ofId(parts[0]), parts[1], Long.parseLong(parts[2]), Long.parseLong(parts[3]));
		}

	}

}
