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
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks against a real redis-server that both floors' client waits as the peers do:
 * woken by the release of the lock it waits for, from another client (another process) or
 * its own, not by the lease running out; and that a try neither waits nor files. The
 * engine floor's rows need Redis 7.0, for its library of functions.
 */
class WaitingFloorClientTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated();

	@ParameterizedTest
	@EnumSource(names = { "FENCED_FLOOR", "ENGINE_FLOOR" })
	void shouldWakeAWaiterOfAnotherClientWhenTheLockIsReleased(Library floor) throws Exception {
		try (WaitingFloorClient holder = client(floor); WaitingFloorClient waiter = client(floor)) {
			assertWokenByTheRelease(floor, holder, waiter, "across");
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "FENCED_FLOOR", "ENGINE_FLOOR" })
	void shouldWakeAWaiterOfTheSameClientWhenTheLockIsReleased(Library floor) throws Exception {
		try (WaitingFloorClient both = client(floor)) {
			assertWokenByTheRelease(floor, both, both, "within");
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "FENCED_FLOOR", "ENGINE_FLOOR" })
	void shouldRefuseATryAtOnceAndFileNothing(Library floor) throws Exception {
		try (WaitingFloorClient holder = client(floor); WaitingFloorClient other = client(floor)) {
			Hold hold = holder.acquire("tried", LEASE, WAIT);
			assertThat(hold).isNotNull();
			assertThat(other.acquire("tried", LEASE, Duration.ZERO)).isNull();
			assertThat(redis.server().command("EXISTS", line(floor, "tried"))).isEqualTo(0L);
			// Also once the client listens on the lock's channel, having waited for it.
			assertThat(other.acquire("tried", LEASE, Duration.ofMillis(50))).isNull();
			redis.server().command("DEL", line(floor, "tried"));
			assertThat(other.acquire("tried", LEASE, Duration.ZERO)).isNull();
			assertThat(redis.server().command("EXISTS", line(floor, "tried"))).isEqualTo(0L);
			hold.release();
			assertThat(redis.server().command("EXISTS", floor.redisKey("tried"))).isEqualTo(0L);
			Hold next = other.acquire("tried", LEASE, Duration.ZERO);
			assertThat(next).as("a try, once the lock is released").isNotNull();
			next.release();
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "FENCED_FLOOR", "ENGINE_FLOOR" })
	void shouldGiveUpAfterTheWaitWhileTheLockIsHeld(Library floor) throws Exception {
		try (WaitingFloorClient holder = client(floor); WaitingFloorClient waiter = client(floor)) {
			Hold hold = holder.acquire("held", LEASE, WAIT);
			assertThat(hold).isNotNull();
			long start = System.nanoTime();
			assertThat(waiter.acquire("held", LEASE, Duration.ofMillis(300))).isNull();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			hold.release();
		}
	}

	private static void assertWokenByTheRelease(Library floor, WaitingFloorClient holder, WaitingFloorClient waiter,
			String key) throws Exception {
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
			awaitFiled(floor, key);
			hold.release();
			// Woken by the message: far sooner than the 30 s lease or the 20 s wait.
			assertThat(Duration.ofNanos(waited.get(10, TimeUnit.SECONDS))).isLessThan(Duration.ofSeconds(10));
			assertThat(redis.server().command("EXISTS", floor.redisKey(key))).isEqualTo(0L);
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static void awaitFiled(Library floor, String key) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		String line = line(floor, key);
		while (!Long.valueOf(1).equals(redis.server().command("ZCARD", line))) {
			assertThat(System.nanoTime() - deadline).as("the waiter's request").isNegative();
			Thread.sleep(10);
		}
	}

	private static String line(Library floor, String key) {
		return (floor == Library.FENCED_FLOOR) ? FencedFloorScripts.line(floor.redisKey(key))
				: EngineFloorScripts.requests(floor.redisKey(key));
	}

	private static WaitingFloorClient client(Library floor) {
		if (floor == Library.ENGINE_FLOOR) {
			RedisServers.assumeAtLeast(7, "The engine floor's library of functions (FUNCTION LOAD, FCALL)");
		}
		return (floor == Library.FENCED_FLOOR)
				? WaitingFloorClient.fenced(redis.server().host(), redis.server().port(), false)
				: WaitingFloorClient.engine(redis.server().host(), redis.server().port(), false);
	}

}
