package io.github.distributedlock.test;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded waits for a topology to reach a state, failing with what its servers last
 * reported.
 */
final class Await {

	/**
	 * Coarser than {@link TetheredProcess}'s poll: each check here sends several commands
	 * to several servers.
	 */
	private static final Duration POLL = Duration.ofMillis(50);

	private Await() {
	}

	/**
	 * Poll a condition until it holds. A condition that cannot reach a server or gets an
	 * error reply counts as not holding yet, since servers of a topology refuse
	 * connections and commands while they start or change roles; other exceptions end the
	 * wait.
	 * @param what the awaited state, completing "Timed out after N s waiting until ..."
	 * @param diagnostics what the servers report, added to the exception
	 * @throws IllegalStateException if the condition does not hold within the timeout
	 */
	static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> diagnostics) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!holds(condition)) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s waiting until " + what
						+ ". " + describe(diagnostics));
			}
			try {
				Thread.sleep(POLL.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting until " + what, ex);
			}
		}
	}

	private static boolean holds(BooleanSupplier condition) {
		try {
			return condition.getAsBoolean();
		}
		catch (UncheckedIOException | RedisCommandException ex) {
			// Refused connections and replies such as LOADING or MASTERDOWN pass once the
			// topology settles.
			return false;
		}
	}

	private static String describe(Supplier<String> diagnostics) {
		try {
			return diagnostics.get();
		}
		catch (RuntimeException ex) {
			return "Could not ask the servers for their state: " + ex;
		}
	}

}
