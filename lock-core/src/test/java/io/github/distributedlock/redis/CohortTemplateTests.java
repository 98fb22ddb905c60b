package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.CohortStatistics;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Templates with cohorts on (docs/design/cohorting.md), on a real redis-server: callers
 * of one template pass the lock in memory, one at a time, with strictly increasing
 * tokens, beside another template that takes it through Redis; a cohort's holder
 * re-enters and is the current thread's holder.
 */
class CohortTemplateTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static final int THREADS = 8;

	private static final int ROUNDS = 40;

	@Test
	void callersPassTheLockInMemoryOneAtATimeWithIncreasingTokensBesideAnotherTemplate() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		List<long[]> holds = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(THREADS * 2);
		CohortStatistics statistics;
		try (RedisLockTemplate cohorts = RedisLockTemplate.builder(factory).cohorts(16, Duration.ofMillis(50)).build();
				RedisLockTemplate remote = RedisLockTemplate.builder(factory).build()) {
			statistics = cohorts.cohortStatistics();
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> done = new ArrayList<>();
			for (int i = 0; i < THREADS * 2; i++) {
				RedisLockTemplate template = (i % 2 == 0) ? cohorts : remote;
				done.add(threads.submit(() -> {
					start.await();
					for (int round = 0; round < ROUNDS; round++) {
						try (LockHandle held = template.acquire(request())) {
							if (inside.incrementAndGet() != 1) {
								overlaps.incrementAndGet();
							}
							RedisLockHandle handle = (RedisLockHandle) held;
							holds.add(new long[] { held.fencingToken(), handle.grant().token(),
									(template == cohorts) ? 1 : 0 });
							LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300));
							inside.decrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> each : done) {
				each.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
			factory.destroy();
		}
		assertThat(overlaps).as("holds that overlapped").hasValue(0);
		assertPassedWithinTheCohortTemplate(holds, statistics, THREADS * ROUNDS);
		assertThat(statistics.closings()).as("cohorts that passed, closed")
			.isPositive()
			.isLessThanOrEqualTo(statistics.openings());
		Set<Long> redisHolds = ConcurrentHashMap.newKeySet();
		holds.forEach((hold) -> redisHolds.add(hold[1]));
		assertThat(redisHolds.size()).as("holds Redis granted").isLessThan(holds.size());
	}

	/**
	 * Check the holds of a cohort template's holders beside as many of a plain one's, in
	 * the order taken, each as {fencing token, Redis's token, 1 if the cohort
	 * template's}: every hold made, tokens strictly increasing, and passes (a fencing
	 * token Redis did not grant) counted, between the cohort template's holders only.
	 * @param cohortHolds the holds the cohort template's holders took
	 */
	static void assertPassedWithinTheCohortTemplate(List<long[]> holds, CohortStatistics statistics, int cohortHolds) {
		assertThat(holds).hasSize(cohortHolds * 2);
		for (int i = 1; i < holds.size(); i++) {
			assertThat(holds.get(i)[0]).as("the token of hold %d, above the one before", i)
				.isGreaterThan(holds.get(i - 1)[0]);
		}
		long passed = holds.stream().filter((hold) -> hold[0] != hold[1]).count();
		assertThat(passed).as("holds passed in memory").isPositive();
		assertThat(statistics.passes()).as("passes counted").isEqualTo(passed);
		assertThat(statistics.openings()).as("cohorts opened").isPositive().isLessThanOrEqualTo(cohortHolds - passed);
		assertThat(holds.stream().filter((hold) -> hold[0] != hold[1] && hold[2] == 0))
			.as("passes to the other template")
			.isEmpty();
	}

	@Test
	void aHolderThatWasPassedTheLockReentersAndIsTheCurrentThreadsHolder() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		ExecutorService threads = Executors.newFixedThreadPool(3);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.cohorts(16, Duration.ofSeconds(5))
			.build()) {
			LockHandle first = template.acquire(request());
			// A heads the line alone; B, promoted with C behind it, opens a cohort, and
			// its release passes the lock to C.
			CountDownLatch aHolds = new CountDownLatch(1);
			CountDownLatch aReleases = new CountDownLatch(1);
			Future<long[]> a = threads.submit(() -> holdUntil(template, aHolds, aReleases));
			awaitWaiters(template, 1);
			// A files its request before B joins, so that it heads alone and opens no
			// cohort, and first's release reserves the lock for it: a plain one could
			// wake C later, as below.
			awaitRequestFiled(template.lockKey(first.name()));
			Future<long[]> b = threads.submit(() -> hold(template, false));
			awaitWaiters(template, 2);
			Future<long[]> c = threads.submit(() -> hold(template, true));
			awaitWaiters(template, 3);
			first.close();
			// A releases once B, promoted, has filed its request: a release before B's
			// first attempt sends a plain message that can wake C under B's cohort
			// after B's grant (cohorting.md, rule 5), and C then takes no pass.
			assertThat(aHolds.await(30, TimeUnit.SECONDS)).as("A holds").isTrue();
			awaitRequestFiled(template.lockKey(first.name()));
			aReleases.countDown();
			long[] opened = b.get(30, TimeUnit.SECONDS);
			long[] passed = c.get(30, TimeUnit.SECONDS);
			assertThat(a.get(30, TimeUnit.SECONDS)[0]).isGreaterThan(first.fencingToken()).isLessThan(opened[0]);
			assertThat(opened[1]).as("B's hold is Redis's").isEqualTo(opened[0]);
			assertThat(passed[1]).as("C holds B's Redis hold").isEqualTo(opened[1]);
			assertThat(passed[0]).as("C's token, the block's next").isEqualTo(opened[0] + 1);
			assertThat(passed[2]).as("C is the current thread's holder").isOne();
			assertThat(passed[3]).as("C's re-entry shows C's token").isEqualTo(passed[0]);
			assertThat(passed[4]).as("C, re-entered, is still the holder").isOne();
			assertThat(template.isHeldByCurrentThread("cohort", "one")).isFalse();
			assertThat(template.tryAcquire(request())).as("free again").isPresent().get().satisfies(LockHandle::close);
			// B's cohort opened, passed once, and closed with C's release through Redis.
			CohortStatistics statistics = template.cohortStatistics();
			assertThat(statistics.limits()).isEqualTo(CohortLimits.of(16, Duration.ofSeconds(5)));
			assertThat(statistics.openings()).as("cohorts opened").isOne();
			assertThat(statistics.passes()).as("holds passed").isOne();
			assertThat(statistics.closings()).as("cohorts closed").isOne();
			assertThat(statistics.longestNanos()).isPositive().isEqualTo(statistics.closedNanos());
		}
		finally {
			threads.shutdownNow();
			factory.destroy();
		}
	}

	/**
	 * Take the lock and say: its token, the token Redis records, and for a re-entering
	 * caller, whether it is the current thread's holder, its re-entry's token, and again.
	 */
	private static long[] hold(RedisLockTemplate template, boolean reenter) {
		try (LockHandle held = template.acquire(request())) {
			long redisToken = ((RedisLockHandle) held).grant().token();
			if (!reenter) {
				return new long[] { held.fencingToken(), redisToken };
			}
			long mine = template.isHeldByCurrentThread("cohort", "one") ? 1 : 0;
			try (LockHandle again = template.acquire(request())) {
				return new long[] { held.fencingToken(), redisToken, mine, again.fencingToken(),
						template.isHeldByCurrentThread("cohort", "one") ? 1 : 0 };
			}
		}
	}

	/**
	 * Take the lock and close it once told: its token and the token Redis records.
	 */
	private static long[] holdUntil(RedisLockTemplate template, CountDownLatch holds, CountDownLatch release)
			throws InterruptedException {
		try (LockHandle held = template.acquire(request())) {
			holds.countDown();
			if (!release.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("never told to release");
			}
			return new long[] { held.fencingToken(), ((RedisLockHandle) held).grant().token() };
		}
	}

	private static void awaitRequestFiled(String lockKey) throws InterruptedException {
		String requests = LockKeys.requests(lockKey);
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (requestsFiled(requests) == 0 && System.nanoTime() - end < 0) {
			Thread.sleep(1);
		}
		assertThat(requestsFiled(requests)).as("requests in Redis's line").isPositive();
	}

	private static long requestsFiled(String requests) {
		return ((Number) redis.server().command("ZCARD", requests)).longValue();
	}

	private static void awaitWaiters(RedisLockTemplate template, int waiters) throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (template.waitingThreads() < waiters && System.nanoTime() - end < 0) {
			Thread.sleep(1);
		}
		assertThat(template.waitingThreads()).as("callers waiting").isGreaterThanOrEqualTo(waiters);
	}

	private static LockRequest request() {
		return LockRequest.builder("cohort")
			.key("one")
			.lease(Duration.ofSeconds(30))
			.waitTime(Duration.ofSeconds(60))
			.build();
	}

}
