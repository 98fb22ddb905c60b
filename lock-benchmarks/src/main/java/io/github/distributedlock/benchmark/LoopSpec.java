package io.github.distributedlock.benchmark;

import java.util.Locale;

/**
 * What a worker's threads do in one timed phase: acquire, hold, release, again, until the
 * end time.
 *
 * @param library the library to drive
 * @param keys how keys are chosen
 * @param threads threads in the worker
 * @param keyCount number of keys for {@link KeyChoice#RANDOM}
 * @param prefix prefix of every key name
 * @param holdMicros how long each hold lasts (busy wait), in microseconds
 * @param leaseMillis lease of each acquisition
 * @param waitMillis how long an acquisition may wait
 */
public record LoopSpec(Library library, KeyChoice keys, int threads, int keyCount, String prefix, long holdMicros,
		long leaseMillis, long waitMillis) {

	/**
	 * The command that starts a loop in a worker.
	 */
	public static final String COMMAND = "LOOP";

	/**
	 * Return the worker command for this loop.
	 * @param startNanos when to start, as {@link System#nanoTime()}
	 * @param endNanos when to stop starting new acquisitions
	 * @param output the file for the acquisitions, or {@code -} to keep none
	 * @return the command line
	 */
	public String command(long startNanos, long endNanos, String output) {
		return String.join(" ", COMMAND, this.library.id(), this.keys.name(), Integer.toString(this.threads),
				Integer.toString(this.keyCount), this.prefix, Long.toString(this.holdMicros),
				Long.toString(this.leaseMillis), Long.toString(this.waitMillis), Long.toString(startNanos),
				Long.toString(endNanos), output);
	}

	/**
	 * Return how many distinct lock names phases of this loop used.
	 * @param attempts acquisitions attempted in those phases, successful or timed out
	 * @return the distinct names: every attempt for {@link KeyChoice#DISTINCT} (workers
	 * never reuse such a name), one for {@link KeyChoice#ONE}, and every key for
	 * {@link KeyChoice#RANDOM} (phases are long enough to draw each)
	 */
	public long distinctNames(long attempts) {
		return switch (this.keys) {
			case DISTINCT -> attempts;
			case ONE -> 1;
			case RANDOM -> this.keyCount;
		};
	}

	/**
	 * Parse the arguments of a {@link #COMMAND} line, after the command word.
	 * @param args the arguments
	 * @return the loop, the start and end times and the output file
	 */
	public static Parsed parse(String[] args) {
		LoopSpec spec = new LoopSpec(Library.ofId(args[0]), KeyChoice.valueOf(args[1].toUpperCase(Locale.ROOT)),
				Integer.parseInt(args[2]), Integer.parseInt(args[3]), args[4], Long.parseLong(args[5]),
				Long.parseLong(args[6]), Long.parseLong(args[7]));
		return new Parsed(spec, Long.parseLong(args[8]), Long.parseLong(args[9]), args[10]);
	}

	/**
	 * A parsed loop command.
	 *
	 * @param spec the loop
	 * @param startNanos when to start
	 * @param endNanos when to stop
	 * @param output the output file, or {@code -}
	 */
	public record Parsed(LoopSpec spec, long startNanos, long endNanos, String output) {

	}

	/**
	 * How a loop picks the key of each acquisition.
	 */
	public enum KeyChoice {

		/**
		 * A new key every time: nothing is ever contended.
		 */
		DISTINCT,

		/**
		 * The same single key for every thread of every worker.
		 */
		ONE,

		/**
		 * A uniformly random key among {@code keyCount}.
		 */
		RANDOM

	}

}
