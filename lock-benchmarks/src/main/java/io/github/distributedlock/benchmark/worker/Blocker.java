package io.github.distributedlock.benchmark.worker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.Acquisition;
import io.github.distributedlock.benchmark.AcquisitionFile;
import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;

/**
 * Holds many locks at once so that waiters pile up behind them, then releases them all.
 * Both commands must run on the same thread, which the worker's single command thread
 * guarantees.
 */
final class Blocker {

	private static final int BLOCKER_THREAD = 99_999;

	private final LockClients clients;

	private final List<Hold> holds = new ArrayList<>();

	private final List<long[]> stamps = new ArrayList<>();

	private int workerId;

	Blocker(LockClients clients) {
		this.clients = clients;
	}

	/**
	 * {@code BLOCK <library> <prefix> <keys> <leaseMillis> <workerId>}: take
	 * {@code <prefix>-0} to {@code <prefix>-<keys - 1>}.
	 * @return {@code BLOCKED <keys>}
	 */
	String block(String[] args) throws InterruptedException {
		if (!this.holds.isEmpty()) {
			throw new IllegalStateException("Already blocking " + this.holds.size() + " locks");
		}
		LockClient client = this.clients.get(Library.ofId(args[0]));
		int keys = Integer.parseInt(args[2]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
		this.workerId = Integer.parseInt(args[4]);
		for (int i = 0; i < keys; i++) {
			long requested = System.nanoTime();
			Hold hold = client.acquire(args[1] + "-" + i, lease, Duration.ofSeconds(10));
			if (hold == null) {
				throw new IllegalStateException("The blocker could not take " + args[1] + "-" + i);
			}
			this.holds.add(hold);
			this.stamps.add(new long[] { requested, System.nanoTime() });
		}
		return "BLOCKED " + keys;
	}

	/**
	 * {@code UNBLOCK <file>}: release every lock in key order and write the holds to the
	 * file.
	 * @return {@code UNBLOCKED <first release started> <last release done>} as nano times
	 */
	String unblock(String[] args) {
		List<Acquisition> released = new ArrayList<>();
		long first = System.nanoTime();
		for (int i = 0; i < this.holds.size(); i++) {
			long releasing = System.nanoTime();
			this.holds.get(i).release();
			long[] stamp = this.stamps.get(i);
			released.add(new Acquisition(Acquisition.holder(this.workerId, BLOCKER_THREAD), i, stamp[0], stamp[1],
					releasing, System.nanoTime()));
		}
		long last = System.nanoTime();
		this.holds.clear();
		this.stamps.clear();
		AcquisitionFile.write(Path.of(args[0]), released);
		return "UNBLOCKED " + first + " " + last;
	}

}
