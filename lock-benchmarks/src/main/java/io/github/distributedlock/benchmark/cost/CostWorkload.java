package io.github.distributedlock.benchmark.cost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Threads taking and releasing locks through one or more {@link RedisLockTemplate}s, each
 * template on its own connection factory, as separate processes would be: they share
 * nothing but the server. Built the way the README shows, so waiters use the default
 * {@code PUBSUB} strategy with hand-off. Every thread checks, while it holds the lock,
 * that nobody else does and that fencing tokens increase.
 */
final class CostWorkload implements AutoCloseable {

	private static final String SCOPE = "cost";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	private final int threadsPerTemplate;

	private final boolean newKeyEachTime;

	private final long holdNanos;

	private int runs;

	/**
	 * @param templates how many templates, each on its own connection factory
	 * @param threadsPerTemplate how many threads take the lock through each template
	 * @param newKeyEachTime whether each acquisition takes a lock of a new name (else all
	 * take one)
	 * @param hold how long each hold lasts, spent spinning
	 */
	CostWorkload(RedisServer server, int templates, int threadsPerTemplate, boolean newKeyEachTime, Duration hold) {
		this.threadsPerTemplate = threadsPerTemplate;
		this.newKeyEachTime = newKeyEachTime;
		this.holdNanos = hold.toNanos();
		for (int i = 0; i < templates; i++) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
			factory.afterPropertiesSet();
			factory.start();
			this.factories.add(factory);
			this.templates.add(RedisLockTemplate.builder(factory).build());
		}
	}

	/**
	 * Take and release locks until {@code acquisitions} holds were taken in all.
	 */
	Outcome run(int acquisitions) {
		int run = ++this.runs;
		AtomicLong taken = new AtomicLong();
		AtomicInteger holding = new AtomicInteger();
		AtomicLong overlaps = new AtomicLong();
		AtomicLong tokenRegressions = new AtomicLong();
		AtomicLong timeouts = new AtomicLong();
		AtomicLong handOffs = new AtomicLong();
		// Written only while holding the lock (one key), read by the next holder.
		long[] last = { -1, -1 };
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < this.templates.size(); t++) {
			RedisLockTemplate template = this.templates.get(t);
			for (int n = 0; n < this.threadsPerTemplate; n++) {
				int threadIndex = t * this.threadsPerTemplate + n;
				threads.add(new Thread(() -> {
					while (true) {
						long number = taken.getAndIncrement();
						if (number >= acquisitions) {
							return;
						}
						String key = this.newKeyEachTime ? "r" + run + "-" + number : "one";
						LockRequest request = LockRequest.builder(SCOPE).key(key).lease(LEASE).waitTime(WAIT).build();
						Optional<LockHandle> handle = template.tryAcquire(request);
						if (handle.isEmpty()) {
							timeouts.incrementAndGet();
							continue;
						}
						try (LockHandle held = handle.get()) {
							if (holding.incrementAndGet() != 1) {
								overlaps.incrementAndGet();
							}
							if (!this.newKeyEachTime) {
								synchronized (last) {
									if (held.fencingToken() <= last[0]) {
										tokenRegressions.incrementAndGet();
									}
									if (last[1] != -1 && last[1] != threadIndex) {
										handOffs.incrementAndGet();
									}
									last[0] = held.fencingToken();
									last[1] = threadIndex;
								}
							}
							spin(this.holdNanos);
							holding.decrementAndGet();
						}
					}
				}, "cost-" + threadIndex));
			}
		}
		threads.forEach(Thread::start);
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while the workload ran", ex);
			}
		}
		long names = this.newKeyEachTime ? acquisitions : 1;
		return new Outcome(acquisitions - timeouts.get(), names, overlaps.get(), tokenRegressions.get(), timeouts.get(),
				handOffs.get());
	}

	private static void spin(long nanos) {
		long end = System.nanoTime() + nanos;
		while (System.nanoTime() - end < 0) {
			Thread.onSpinWait();
		}
	}

	@Override
	public void close() {
		this.templates.forEach(RedisLockTemplate::close);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	/**
	 * What a run of the workload did.
	 *
	 * @param acquisitions holds taken
	 * @param names distinct lock names taken
	 * @param overlaps holds taken while another thread held the same lock (must be 0)
	 * @param tokenRegressions holds whose fencing token was not above the previous
	 * holder's (must be 0)
	 * @param timeouts acquisitions whose wait ran out
	 * @param handOffs holds taken by another thread than the previous hold's
	 */
	record Outcome(long acquisitions, long names, long overlaps, long tokenRegressions, long timeouts, long handOffs) {

	}

}
