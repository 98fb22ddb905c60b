package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;

/**
 * The two sides of the crash-recovery scenario: a holder that takes a lock and is then
 * killed, and a waiter that takes the lock after the holder's lease ends.
 */
final class SingleLock {

	private static final int WARM_UP_ACQUISITIONS = 20;

	private SingleLock() {
	}

	/**
	 * {@code HOLD <library> <key> <leaseMillis>}: take the lock and keep it; the
	 * coordinator kills this JVM.
	 * @return {@code HELD <requested> <acquired>} as nano times
	 */
	static String hold(LockClients clients, String[] args) throws InterruptedException {
		LockClient client = clients.get(Library.ofId(args[0]));
		warmUp(client, args[1]);
		long requested = System.nanoTime();
		Hold hold = client.acquire(args[1], Duration.ofMillis(Long.parseLong(args[2])), Duration.ofSeconds(10));
		long acquired = System.nanoTime();
		if (hold == null) {
			throw new IllegalStateException("The holder could not take " + args[1]);
		}
		return "HELD " + requested + " " + acquired;
	}

	/**
	 * Take and release another key a few times, so that the first use of the client in
	 * this fresh JVM (class loading, connection setup) does not fall between the lease's
	 * start in Redis and the stamp that dates it.
	 */
	private static void warmUp(LockClient client, String key) throws InterruptedException {
		for (int i = 0; i < WARM_UP_ACQUISITIONS; i++) {
			Hold hold = client.acquire(key + "-warmup", Duration.ofSeconds(10), Duration.ofSeconds(10));
			if (hold != null) {
				hold.release();
			}
		}
	}

	/**
	 * {@code WAIT <library> <key> <leaseMillis> <waitMillis>}: wait for the lock, then
	 * release it.
	 * @return {@code GOT <requested> <acquired>} or {@code TIMEOUT <requested> <gaveUp>}
	 * as nano times
	 */
	static String await(LockClients clients, String[] args) throws InterruptedException {
		LockClient client = clients.get(Library.ofId(args[0]));
		long requested = System.nanoTime();
		Hold hold = client.acquire(args[1], Duration.ofMillis(Long.parseLong(args[2])),
				Duration.ofMillis(Long.parseLong(args[3])));
		long acquired = System.nanoTime();
		if (hold == null) {
			return "TIMEOUT " + requested + " " + acquired;
		}
		hold.release();
		return "GOT " + requested + " " + acquired;
	}

}
