package io.github.distributedlock.benchmark.worker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.benchmark.Acquisition;
import io.github.distributedlock.benchmark.AcquisitionFile;
import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;

/**
 * Many threads (virtual where the JVM has them) waiting on locks that a blocker holds:
 * {@code WAITERS <library> <prefix> <keys> <threads> <waitMillis> <settleMillis> <file>}.
 * <p>
 * Answers
 * {@code WAITING <heap before> <heap while waiting> <rss> <platform threads> <virtual>}
 * once every thread is inside its acquire call and the settle time has passed, then
 * {@code DRAINED <last release or give-up> <acquisitions> <timeouts> <errors> <peak platform threads>}
 * when all are done.
 */
public final class Waiters {

	/**
	 * The lease of each waiter's lock, far shorter than the blocker's.
	 */
	public static final Duration LEASE = Duration.ofSeconds(60);

	private final LockClient client;

	private final int workerId;

	private final String prefix;

	private final int keys;

	private final int threads;

	private final Duration wait;

	private final long settleMillis;

	private final Path output;

	private final long[] stamps;

	private final AtomicLong timeouts = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	Waiters(LockClients clients, int workerId, String[] args) {
		this.client = clients.get(Library.ofId(args[0]));
		this.workerId = workerId;
		this.prefix = args[1];
		this.keys = Integer.parseInt(args[2]);
		this.threads = Integer.parseInt(args[3]);
		this.wait = Duration.ofMillis(Long.parseLong(args[4]));
		this.settleMillis = Long.parseLong(args[5]);
		this.output = Path.of(args[6]);
		this.stamps = new long[this.threads * 4];
	}

	void run() throws InterruptedException {
		warmUp();
		// Let anything the warm-up started (subscription linger, connection setup) settle
		// before the baseline.
		Thread.sleep(this.settleMillis);
		long heapBefore = JvmStats.liveHeapBytes();
		boolean virtual = Runtime.version().feature() >= 21;
		ExecutorService executor = threadPerTask(virtual);
		CountDownLatch entered = new CountDownLatch(this.threads);
		for (int i = 0; i < this.threads; i++) {
			int index = i;
			executor.execute(() -> waitFor(index, entered));
		}
		entered.await();
		Thread.sleep(this.settleMillis);
		Replies.send("WAITING " + heapBefore + " " + JvmStats.liveHeapBytes() + " " + JvmStats.residentBytes() + " "
				+ JvmStats.platformThreads() + " " + virtual);
		awaitAll(executor);
		List<Acquisition> acquisitions = new ArrayList<>();
		long last = 0;
		for (int i = 0; i < this.threads; i++) {
			int at = i * 4;
			// A waiter that gave up has only its end stamp: it still counts for when the
			// process was done.
			last = Math.max(last, this.stamps[at + 3]);
			if (this.stamps[at + 1] != 0) {
				acquisitions.add(new Acquisition(Acquisition.holder(this.workerId, i), i % this.keys, this.stamps[at],
						this.stamps[at + 1], this.stamps[at + 2], this.stamps[at + 3]));
			}
		}
		AcquisitionFile.write(this.output, acquisitions);
		Replies.send("DRAINED " + last + " " + acquisitions.size() + " " + this.timeouts.get() + " " + this.errors.get()
				+ " " + JvmStats.peakPlatformThreads());
	}

	/**
	 * Wait until every waiter is done. Spring Integration may wait twice its wait time
	 * (once for its local lock, then again for Redis); a waiter still waiting after that
	 * is stopped and counted as timed out, because it has not got its lock within its
	 * wait time either.
	 */
	private void awaitAll(ExecutorService executor) throws InterruptedException {
		executor.shutdown();
		if (!executor.awaitTermination(2 * this.wait.toMillis() + 30_000, TimeUnit.MILLISECONDS)) {
			executor.shutdownNow();
			executor.awaitTermination(10, TimeUnit.SECONDS);
		}
		for (int i = 0; i < this.threads; i++) {
			if (this.stamps[i * 4 + 3] == 0) {
				this.timeouts.incrementAndGet();
				this.stamps[i * 4 + 3] = System.nanoTime();
			}
		}
	}

	private void warmUp() throws InterruptedException {
		Hold hold = this.client.acquire(this.prefix + "-warmup-" + this.workerId, LEASE, this.wait);
		if (hold != null) {
			hold.release();
		}
	}

	private void waitFor(int index, CountDownLatch entered) {
		String key = this.prefix + "-" + (index % this.keys);
		int at = index * 4;
		entered.countDown();
		try {
			long requested = System.nanoTime();
			Hold hold = this.client.acquire(key, LEASE, this.wait);
			long acquired = System.nanoTime();
			if (hold == null) {
				this.timeouts.incrementAndGet();
				this.stamps[at + 3] = acquired;
				return;
			}
			long releasing = System.nanoTime();
			hold.release();
			this.stamps[at + 3] = System.nanoTime();
			this.stamps[at] = requested;
			this.stamps[at + 1] = acquired;
			this.stamps[at + 2] = releasing;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RuntimeException ex) {
			if (this.errors.incrementAndGet() <= 5) {
				ex.printStackTrace();
			}
		}
	}

	/**
	 * Return an executor with one new thread per task: virtual threads on Java 21 and
	 * later, found reflectively because this module compiles for Java 17.
	 */
	private static ExecutorService threadPerTask(boolean virtual) {
		if (virtual) {
			try {
				return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException("Java " + Runtime.version() + " has no virtual threads", ex);
			}
		}
		return Executors.newCachedThreadPool();
	}

}
