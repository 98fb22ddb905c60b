package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;

/**
 * Threads that take one lock (or one set of locks) in turn for a few seconds, with wait
 * times of a few milliseconds or, one time in three, of 3 s, holds of up to 200 µs, and,
 * if asked, an interrupt of a random one every 1–3 ms. Records what must never happen:
 * two holders at once, a 3 s wait that times out (a hold nobody releases keeps the lock
 * until its lease), and a call that returns more than 2 s after its wait time.
 */
final class ContentionStress {

	private ContentionStress() {
	}

	/**
	 * Run the threads.
	 * @param executor where the threads run
	 * @param threads how many
	 * @param templateOf the template each thread (by its index) acquires through
	 * @param acquirer one acquisition with the given wait time
	 * @param interrupts whether to interrupt the threads at random
	 * @param length how long they run
	 * @return what happened
	 */
	static Result run(ExecutorService executor, int threads, IntFunction<RedisLockTemplate> templateOf,
			Acquirer acquirer, boolean interrupts, Duration length) throws Exception {
		AtomicBoolean inside = new AtomicBoolean();
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger interrupted = new AtomicInteger();
		AtomicInteger shortTimeouts = new AtomicInteger();
		ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
		List<Thread> workers = new CopyOnWriteArrayList<>();
		long end = System.nanoTime() + length.toNanos();
		List<Future<?>> running = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			running.add(executor.submit(() -> {
				workers.add(Thread.currentThread());
				Random random = new Random(thread);
				RedisLockTemplate template = templateOf.apply(thread);
				while (System.nanoTime() - end < 0) {
					boolean patient = random.nextInt(3) == 0;
					Duration wait = patient ? Duration.ofSeconds(3) : Duration.ofMillis(1 + random.nextInt(20));
					long start = System.nanoTime();
					try {
						Optional<LockHandle> held = acquirer.acquire(template, wait);
						long took = System.nanoTime() - start;
						if (took - wait.toNanos() > TimeUnit.SECONDS.toNanos(2)) {
							failures.add("took " + TimeUnit.NANOSECONDS.toMillis(took) + " ms for a wait of "
									+ wait.toMillis() + " ms");
						}
						if (held.isEmpty()) {
							if (patient) {
								failures.add("a wait of 3 s timed out");
							}
							shortTimeouts.incrementAndGet();
							continue;
						}
						try (LockHandle handle = held.get()) {
							if (!inside.compareAndSet(false, true)) {
								failures.add("two holders at once");
							}
							long until = System.nanoTime() + random.nextInt(200_000);
							while (System.nanoTime() - until < 0) {
								Thread.onSpinWait();
							}
							acquired.incrementAndGet();
							inside.set(false);
						}
					}
					catch (LockInterruptedException ex) {
						interrupted.incrementAndGet();
					}
					Thread.interrupted();
				}
			}));
		}
		Random chaos = new Random(42);
		while (System.nanoTime() - end < 0) {
			Thread.sleep(1 + chaos.nextInt(3));
			if (interrupts && !workers.isEmpty()) {
				workers.get(chaos.nextInt(workers.size())).interrupt();
			}
		}
		for (Future<?> thread : running) {
			thread.get(60, TimeUnit.SECONDS);
		}
		return new Result(acquired.get(), interrupted.get(), shortTimeouts.get(), List.copyOf(failures));
	}

	/**
	 * One acquisition.
	 */
	@FunctionalInterface
	interface Acquirer {

		/**
		 * Acquire, or return empty if the wait time ran out.
		 */
		Optional<LockHandle> acquire(RedisLockTemplate template, Duration wait);

	}

	/**
	 * What happened.
	 *
	 * @param acquired the holds taken
	 * @param interrupted the acquisitions ended by an interrupt
	 * @param shortTimeouts the waits that timed out
	 * @param failures what must never happen, as it happened
	 */
	record Result(int acquired, int interrupted, int shortTimeouts, List<String> failures) {

	}

}
