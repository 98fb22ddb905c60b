package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;

/**
 * Acquire and release pairs on one lock name by two threads: either of two clients of a
 * library, each with its own connections, as two processes would have (the hand-offs of
 * scenario 2 with 2 processes), or of one client, as two threads of one process share it
 * (the hand-offs inside one JVM of scenario 2's processes of 8 threads). For measurements
 * made outside the benchmark's worker JVMs. Each hold lasts about as long as scenario
 * 2's.
 */
public final class ContendedPairs implements AutoCloseable {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final long HOLD_NANOS = 100_000;

	private final List<LockClients> processes = new ArrayList<>();

	private final Library library;

	private final String name;

	private final int threadsPerClient;

	/**
	 * Connect the library's clients to a standalone server.
	 * @param host the server's host
	 * @param port the server's port
	 * @param library the library to drive
	 * @param oneProcess whether both threads share one client, as threads of one process
	 * do, rather than each having a client of its own
	 */
	public ContendedPairs(String host, int port, Library library, boolean oneProcess) {
		this.library = library;
		this.name = library.id() + "-contended-pairs";
		this.threadsPerClient = oneProcess ? 2 : 1;
		for (int i = 0; i < 2 / this.threadsPerClient; i++) {
			LockClients clients = new LockClients(host, port, false);
			clients.get(library);
			this.processes.add(clients);
		}
	}

	/**
	 * Let each client acquire and release the lock this many times, at once.
	 * @param pairsEach acquire and release pairs of each client
	 * @throws InterruptedException if interrupted while waiting for the clients
	 * @throws IllegalStateException if an acquisition timed out or failed
	 */
	public void run(int pairsEach) throws InterruptedException {
		Queue<RuntimeException> failures = new ConcurrentLinkedQueue<>();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 2; t++) {
			LockClient client = this.processes.get(t / this.threadsPerClient).get(this.library);
			Thread thread = new Thread(() -> {
				try {
					for (int i = 0; i < pairsEach; i++) {
						Hold hold = client.acquire(this.name, LEASE, WAIT);
						if (hold == null) {
							throw new IllegalStateException(
									"Lock '" + this.name + "' of " + this.library.id() + " timed out after " + WAIT);
						}
						Pacing.busyWait(System.nanoTime() + HOLD_NANOS);
						hold.release();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					failures.add(new IllegalStateException("Interrupted", ex));
				}
				catch (RuntimeException ex) {
					failures.add(ex);
				}
			}, this.name + "-" + threads.size());
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		if (!failures.isEmpty()) {
			throw failures.remove();
		}
	}

	@Override
	public void close() {
		this.processes.forEach(LockClients::close);
	}

}
