package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fair lock released before its minimum hold ended stays taken by nobody until then,
 * and its release names the first waiter, who learns how long from its next attempt. If
 * that waiter gives up during the keep, its leaving must name the next one: nobody else
 * will (the keep ends by expiry, which publishes nothing). Found by the simulation (seed
 * 1011): the next waiter slept until the lease it had last heard of. And a blocking fair
 * waiter must try again when the lease it slept until ends.
 */
class FairKeepTests {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final String KEY = "lock:{fair-keep:k}";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void aFirstWaiterThatGivesUpDuringAKeepNamesTheNext() throws Exception {
		try (RedisLockTemplate holder = template();
				RedisLockTemplate first = template();
				RedisLockTemplate second = template()) {
			LockHandle held = holder.acquire(fair().lease(LEASE).holdAtLeast(Duration.ofSeconds(3)).build());
			Future<?> firstWait = this.connected.executor()
				.submit(() -> first.acquire(fair().waitTime(Duration.ofSeconds(1)).build()));
			await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 1);
			Future<LockHandle> secondWait = this.connected.executor()
				.submit(() -> second.acquire(fair().waitTime(Duration.ofSeconds(15)).build()));
			await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 2);
			long released = System.nanoTime();
			// Kept until 3 s after the grant; the release names the first waiter, whose
			// wait ends during the keep.
			held.close();
			assertThat(catchCause(firstWait)).isInstanceOf(LockTimeoutException.class);
			assertThat(redis.server().command("HGET", KEY, "owner")).as("still kept when the first gave up")
				.isEqualTo("");
			try (LockHandle taken = secondWait.get(20, TimeUnit.SECONDS)) {
				Duration waited = Duration.ofNanos(System.nanoTime() - released);
				// The keep ends at most 3 s after the release; the lease 10 s after.
				assertThat(waited).as("taken after the release").isLessThan(Duration.ofSeconds(5));
				assertThat(taken.isHeld()).isTrue();
			}
		}
	}

	@Test
	void aFairWaiterTriesAgainWhenTheHoldersLeaseEnds() throws Exception {
		// A holder that died: nobody releases, its lease ends. The waiter slept until
		// then, and must try at once: it spun on 1 ms sleeps until its heartbeat or its
		// wait time, whichever came first (here the wait time, 10 s).
		redis.server().command("HSET", KEY, "owner", "ghost", "holds", "1", "token", "1");
		redis.server().command("PEXPIRE", KEY, "1000");
		try (RedisLockTemplate waiter = template()) {
			long started = System.nanoTime();
			try (LockHandle taken = waiter.acquire(fair().waitTime(Duration.ofSeconds(10)).build())) {
				assertThat(Duration.ofNanos(System.nanoTime() - started)).as("taken after the lease of 1 s ended")
					.isLessThan(Duration.ofSeconds(3));
				assertThat(taken.isHeld()).isTrue();
			}
		}
	}

	private long queued() {
		Object count = redis.server().command("ZCARD", LockKeys.fairQueue(KEY));
		return (count != null) ? ((Number) count).longValue() : 0;
	}

	private static Throwable catchCause(Future<?> future) throws InterruptedException {
		try {
			future.get(5, TimeUnit.SECONDS);
			return new AssertionError("acquired");
		}
		catch (java.util.concurrent.ExecutionException ex) {
			return ex.getCause();
		}
		catch (java.util.concurrent.TimeoutException ex) {
			return ex;
		}
	}

	private static LockRequest.Builder fair() {
		return LockRequest.builder("fair-keep").key("k").fair(true);
	}

	private RedisLockTemplate template() {
		// A heartbeat (a third of the waiter timeout) far later than the lease: a waiter
		// wakes for a release's name or its holder's lease only.
		return RedisLockTemplate.builder(this.connected.connectionFactory())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
	}

}
