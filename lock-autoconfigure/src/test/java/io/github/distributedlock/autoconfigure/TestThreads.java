package io.github.distributedlock.autoconfigure;

import java.util.concurrent.Executor;

/**
 * Where tests run blocking work in the background: a new daemon thread per task. Not the
 * common pool, which since JDK 25 also serves {@code CompletableFuture}'s async methods
 * when it has a single thread (as on two cores), so one blocked task would stall the
 * next.
 */
final class TestThreads {

	static final Executor NEW_THREAD = (task) -> {
		Thread thread = new Thread(task, "test-worker");
		thread.setDaemon(true);
		thread.start();
	};

	private TestThreads() {
	}

}
