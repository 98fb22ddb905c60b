package io.github.distributedlock.test;

import java.util.ArrayList;
import java.util.List;

/**
 * The processes of one topology in launch order, closed together so that a failed start
 * or close leaks nothing.
 */
final class ProcessGroup {

	private final List<RedisProcess> processes = new ArrayList<>();

	synchronized RedisProcess add(RedisProcess process) {
		this.processes.add(process);
		return process;
	}

	synchronized List<RedisProcess> list() {
		return List.copyOf(this.processes);
	}

	/**
	 * Close the processes in the given order, trying every one even when one fails.
	 * @throws IllegalStateException if any could not be closed
	 */
	static void closeAll(List<RedisProcess> processes) {
		IllegalStateException failure = null;
		for (RedisProcess process : processes) {
			try {
				process.close();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = new IllegalStateException("Could not close every process of the topology", ex);
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Close everything launched so far after a failed start, keeping the start failure as
	 * the one thrown.
	 */
	RuntimeException abandon(RuntimeException startFailure) {
		try {
			closeAll(list());
		}
		catch (RuntimeException ex) {
			startFailure.addSuppressed(ex);
		}
		return startFailure;
	}

}
