package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks against a real redis-server that the fenced floor's client waits as the peers
 * do: woken by the release of the lock it waits for, from another client (another
 * process) or its own, not by the lease running out.
 */
class FencedFloorClientTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldWakeAWaiterOfAnotherClientWhenTheLockIsReleased() throws Exception {
		try (FencedFloorClient holder = client(); FencedFloorClient waiter = client()) {
			assertWokenByTheRelease(holder, waiter, "across");
		}
	}

	@Test
	void shouldWakeAWaiterOfTheSameClientWhenTheLockIsReleased() throws Exception {
		try (FencedFloorClient both = client()) {
			assertWokenByTheRelease(both, both, "within");
		}
	}

	@Test
	void shouldGiveUpAfterTheWaitWhileTheLockIsHeld() throws Exception {
		try (FencedFloorClient holder = client(); FencedFloorClient waiter = client()) {
			Hold hold = holder.acquire("held", LEASE, WAIT);
			assertThat(hold).isNotNull();
			long start = System.nanoTime();
			assertThat(waiter.acquire("held", LEASE, Duration.ofMillis(300))).isNull();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			hold.release();
		}
	}

	private static void assertWokenByTheRelease(FencedFloorClient holder, FencedFloorClient waiter, String key)
			throws Exception {
		ExecutorService threads = Executors.newSingleThreadExecutor();
		try {
			Hold hold = holder.acquire(key, LEASE, WAIT);
			assertThat(hold).isNotNull();
			CountDownLatch trying = new CountDownLatch(1);
			Future<Long> waited = threads.submit(() -> {
				trying.countDown();
				long start = System.nanoTime();
				Hold next = waiter.acquire(key, LEASE, WAIT);
				assertThat(next).isNotNull();
				next.release();
				return System.nanoTime() - start;
			});
			assertThat(trying.await(5, TimeUnit.SECONDS)).isTrue();
			// The waiter tries, is refused and files its request, so the release reserves
			// the lock for it and tells it.
			awaitFiled(key);
			hold.release();
			// Woken by the message: far sooner than the 30 s lease or the 20 s wait.
			assertThat(Duration.ofNanos(waited.get(10, TimeUnit.SECONDS))).isLessThan(Duration.ofSeconds(10));
			assertThat(redis.server().command("EXISTS", Library.FENCED_FLOOR.redisKey(key))).isEqualTo(0L);
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static void awaitFiled(String key) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		String line = FencedFloorScripts.line(Library.FENCED_FLOOR.redisKey(key));
		while (!Long.valueOf(1).equals(redis.server().command("ZCARD", line))) {
			assertThat(System.nanoTime() - deadline).as("the waiter's request").isNegative();
			Thread.sleep(10);
		}
	}

	private static FencedFloorClient client() {
		return new FencedFloorClient(redis.server().host(), redis.server().port(), false);
	}

}
