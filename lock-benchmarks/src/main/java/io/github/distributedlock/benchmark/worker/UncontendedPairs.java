package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;

/**
 * Uncontended acquire and release pairs on the calling thread, a new lock name each time,
 * through the same client of a library that scenario 1 of the benchmark drives, with the
 * same lease and wait; for measurements made outside the benchmark's worker JVMs.
 * <p>
 * Not thread-safe: one thread runs every pair, because Redisson and Spring Integration
 * tie a lock to the thread that took it.
 */
public final class UncontendedPairs implements AutoCloseable {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final LockClients clients;

	private final Library library;

	private final String prefix;

	private long names;

	/**
	 * Connect the library's client to a standalone server.
	 * @param host the server's host
	 * @param port the server's port
	 * @param library the library to drive
	 */
	public UncontendedPairs(String host, int port, Library library) {
		this.clients = new LockClients(host, port, false);
		this.library = library;
		this.prefix = library.id() + "-uncontended-0-";
		this.clients.get(library);
	}

	/**
	 * Acquire and release locks of new names, one after the other.
	 * @param pairs how many acquire and release pairs
	 * @throws InterruptedException if interrupted while acquiring
	 * @throws IllegalStateException if an acquisition, which nothing contends, times out
	 */
	public void run(int pairs) throws InterruptedException {
		LockClient client = this.clients.get(this.library);
		for (int i = 0; i < pairs; i++) {
			String name = this.prefix + this.names++;
			Hold hold = client.acquire(name, LEASE, WAIT);
			if (hold == null) {
				throw new IllegalStateException(
						"Uncontended lock '" + name + "' of " + this.library.id() + " timed out after " + WAIT);
			}
			hold.release();
		}
	}

	@Override
	public void close() {
		this.clients.close();
	}

}
