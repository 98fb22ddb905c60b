package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A custom owner shared by two processes (two templates) waits twice for a fair lock,
 * with another owner's waiter between its two places. When its turn comes, both of its
 * acquisitions go on at once: one takes the lock, the other joins that hold (or, not
 * reentrant, fails as a self-deadlock), and the other owner's waiter goes next. With one
 * place per acquisition and a release naming only the first, the second slept until its
 * next heartbeat call, a third of the fair waiter timeout (20 s here). Found by an
 * adversarial review of the per-acquisition places.
 */
class FairSharedOwnerTests {

	private static final String KEY = "lock:{fair-shared:k}";

	// Long, so that a waiter left to its heartbeat shows.
	private static final Duration WAITER_TIMEOUT = Duration.ofSeconds(60);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void bothAcquisitionsOfTheOwnerGoOnWhenItsTurnComes() throws Exception {
		try (RedisLockTemplate holder = template();
				RedisLockTemplate first = template();
				RedisLockTemplate second = template();
				RedisLockTemplate other = template()) {
			LockHandle held = holder.acquire(fair().build());
			Future<LockHandle> s1 = submit(first, fair().owner("S").build(), 1);
			Future<LockHandle> t = submit(other, fair().build(), 2);
			Future<LockHandle> s2 = submit(second, fair().owner("S").build(), 3);
			held.close();
			try (LockHandle one = s1.get(2, TimeUnit.SECONDS); LockHandle two = s2.get(2, TimeUnit.SECONDS)) {
				assertThat(two.fencingToken()).isEqualTo(one.fencingToken());
				assertThat(t).isNotDone();
			}
			try (LockHandle next = t.get(2, TimeUnit.SECONDS)) {
				assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			}
			assertThat(queued()).isZero();
		}
	}

	@Test
	void theOtherAcquisitionOfANonReentrantOwnerFailsAtOnce() throws Exception {
		try (RedisLockTemplate holder = template();
				RedisLockTemplate first = template();
				RedisLockTemplate second = template();
				RedisLockTemplate other = template()) {
			LockHandle held = holder.acquire(fair().build());
			Future<LockHandle> s1 = submit(first, fair().owner("S").reentrant(false).build(), 1);
			Future<LockHandle> t = submit(other, fair().build(), 2);
			Future<LockHandle> s2 = submit(second, fair().owner("S").reentrant(false).build(), 3);
			held.close();
			// Either may take it; the other finds its owner holding it.
			Future<LockHandle> taker = taker(s1, s2);
			Future<LockHandle> refused = (taker == s1) ? s2 : s1;
			try (LockHandle taken = taker.get()) {
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> refused.get(2, TimeUnit.SECONDS))
					.withCauseInstanceOf(LockSelfDeadlockException.class);
				assertThat(t).isNotDone();
			}
			t.get(2, TimeUnit.SECONDS).close();
			await().atMost(Duration.ofSeconds(2)).until(() -> queued() == 0);
		}
	}

	private Future<LockHandle> submit(RedisLockTemplate template, LockRequest request, long placesAfter) {
		Future<LockHandle> acquired = this.connected.executor().submit(() -> template.acquire(request));
		await().atMost(Duration.ofSeconds(5)).until(() -> queued() == placesAfter);
		return acquired;
	}

	private static Future<LockHandle> taker(Future<LockHandle> one, Future<LockHandle> two) {
		await().atMost(Duration.ofSeconds(2)).until(() -> took(one) || took(two));
		return took(one) ? one : two;
	}

	private static boolean took(Future<LockHandle> acquired) {
		if (!acquired.isDone()) {
			return false;
		}
		try {
			acquired.get();
			return true;
		}
		catch (InterruptedException | ExecutionException ex) {
			return false;
		}
	}

	private long queued() {
		Object count = redis.server().command("ZCARD", LockKeys.fairQueue(KEY));
		return (count != null) ? ((Number) count).longValue() : 0;
	}

	private static LockRequest.Builder fair() {
		return LockRequest.builder("fair-shared").key("k").fair(true).waitTime(Duration.ofSeconds(40));
	}

	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connected.connectionFactory()).fairWaiterTimeout(WAITER_TIMEOUT).build();
	}

}
