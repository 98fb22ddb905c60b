package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.LockKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

import static io.github.distributedlock.chaos.ResendBench.inBackground;
import static io.github.distributedlock.chaos.ResendBench.onScript;
import static io.github.distributedlock.chaos.ResendBench.takes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release that ends a cohort (docs/design/cohorting.md, rule 4), run twice because
 * its reply was lost: a {@link ChaosProxy} drops Redis's reply to the {@code release.lua}
 * that the cohort's last holder sends, and Lettuce re-sends it after reconnecting. That
 * holder was passed the lock in memory, so the release runs under the cohort's owner and
 * its hold, with the block's first token. Its second run must not free a hold taken
 * between the two runs, the template must take the lock again through Redis with a larger
 * token, and no key is left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResentCohortReleaseTests {

	/** Two holders per cohort: the holder that opens it and the one it passes to. */
	private static final int HOLDERS = 2;

	private ResendBench bench;

	/** Connected through the proxy, with cohorts on: its release is the one re-sent. */
	private RedisLockTemplate holder;

	/** Connected to Redis directly, with owners of its own. */
	private RedisLockTemplate stranger;

	private int tests;

	private String scope;

	@BeforeAll
	void startRedis() throws IOException {
		this.bench = ResendBench.start();
	}

	@AfterAll
	void stopRedis() {
		// Null where starting it failed.
		if (this.bench != null) {
			this.bench.close();
		}
	}

	@BeforeEach
	void connect(TestInfo info) {
		this.scope = info.getTestMethod().orElseThrow().getName() + "-" + (++this.tests);
		this.holder = this.bench.throughProxy((builder) -> builder.cohorts(HOLDERS, Duration.ofSeconds(5)));
		this.stranger = this.bench.direct();
	}

	@AfterEach
	void disconnect() {
		this.bench.disconnect();
	}

	/**
	 * Both runs find the cohort's hold or nothing: the lock is free, and the holder's
	 * template takes it again from Redis.
	 */
	@Test
	void shouldFreeTheLockWhenTheReleaseEndingACohortIsResent() throws Exception {
		PassedHolder last = passedHolder();
		ReplyDrop drop = this.bench.arm(onScript("release.lua"));
		last.close();
		this.bench.assertRanTwice(drop, Duration.ofSeconds(1));
		// The client hears the second run, which finds the lock gone (-1).
		assertThat(last.closed.get(10, TimeUnit.SECONDS)).as("how C's close() ended").isEqualTo("lease lost");
		assertTakenAgainAbove(last.shownToken);
		assertThat(takes(this.stranger, request(Duration.ZERO))).as("a stranger, once every hold was closed").isTrue();
		this.bench.assertNoKeysLeft(this.stranger, last.name());
	}

	/**
	 * A stranger takes the lock between the two runs: the second run, under the cohort's
	 * owner, must leave the stranger's hold alone, and the holder's template must wait
	 * for it.
	 */
	@Test
	void shouldKeepAHoldTakenBetweenTheRunsOfTheReleaseEndingACohort() throws Exception {
		PassedHolder last = passedHolder();
		AtomicReference<LockHandle> taken = new AtomicReference<>();
		ReplyDrop drop = this.bench.arm(onScript("release.lua")
			.afterRunning(() -> taken.set(this.stranger.tryAcquire(request(Duration.ZERO)).orElse(null))));
		last.close();
		this.bench.assertRanTwice(drop, Duration.ofSeconds(1));
		// The client hears the second run, which finds the stranger's hold (-2).
		assertThat(last.closed.get(10, TimeUnit.SECONDS)).as("how C's close() ended").isEqualTo("lease lost");
		LockHandle strangers = taken.get();
		assertThat(strangers).as("the stranger's hold, taken between the two runs").isNotNull();
		assertThat(strangers.fencingToken()).as("the stranger's token").isGreaterThan(last.shownToken);
		assertThat(takes(this.bench.direct(), request(Duration.ZERO)))
			.as("another stranger took the lock the first stranger holds")
			.isFalse();
		assertThat(this.holder.tryAcquire(request(Duration.ofMillis(300))))
			.as("the holder's template took the lock the stranger holds")
			.isEmpty();
		assertThat(strangers.isHeld()).as("the stranger's hold, in Redis").isTrue();
		strangers.close();
		assertTakenAgainAbove(strangers.fencingToken());
		this.bench.assertNoKeysLeft(this.stranger, last.name());
	}

	/**
	 * Open a cohort as {@code CohortTemplateTests} does: A heads the line alone; B,
	 * promoted with C behind it, wins a block of two; B's release passes the lock to C in
	 * memory. Return C, holding.
	 */
	private PassedHolder passedHolder() throws Exception {
		LockHandle first = this.holder.acquire(request(Duration.ofSeconds(60)));
		CountDownLatch aHolds = new CountDownLatch(1);
		CountDownLatch aReleases = new CountDownLatch(1);
		CompletableFuture<Long> a = inBackground(() -> holdUntil(request(Duration.ofSeconds(60)), aHolds, aReleases));
		awaitWaiters(1);
		// A head opens a cohort only once its line hears the lock's messages.
		awaitSubscribed(first.name());
		// A files its request before B joins, so that it heads alone and opens no cohort,
		// and first's release reserves the lock for it: a plain one could wake C later,
		// as below.
		awaitRequestFiled(first.name());
		CompletableFuture<long[]> b = inBackground(() -> {
			try (LockHandle held = this.holder.acquire(request(Duration.ofSeconds(60)))) {
				return new long[] { held.fencingToken(), ((RedisLockHandle) held).grant().token(),
						(((RedisLockHandle) held).grant().cohort() != null) ? 1 : 0 };
			}
		});
		awaitWaiters(2);
		PassedHolder c = new PassedHolder();
		awaitWaiters(3);
		first.close();
		// A releases once B, promoted, has filed its request: a release before B's first
		// attempt sends a plain message that can wake C under B's cohort after B's grant
		// (cohorting.md, rule 5), and C then takes no pass.
		assertThat(aHolds.await(30, TimeUnit.SECONDS)).as("A holds").isTrue();
		awaitRequestFiled(first.name());
		aReleases.countDown();
		long aToken = a.get(30, TimeUnit.SECONDS);
		long[] opened = b.get(30, TimeUnit.SECONDS);
		assertThat(c.held.await(30, TimeUnit.SECONDS)).as("C holds").isTrue();
		assertThat(aToken).as("A's token").isGreaterThan(first.fencingToken()).isLessThan(opened[0]);
		assertThat(opened[1]).as("B's hold is Redis's").isEqualTo(opened[0]);
		assertThat(opened[2]).as("B opened a cohort").isOne();
		assertThat(c.redisToken).as("C holds B's Redis hold").isEqualTo(opened[1]);
		assertThat(c.shownToken).as("C's token, the block's next").isEqualTo(opened[0] + 1);
		return c;
	}

	/**
	 * Take the lock and close it once told: its token.
	 */
	private long holdUntil(LockRequest request, CountDownLatch holds, CountDownLatch release) {
		try (LockHandle held = this.holder.acquire(request)) {
			holds.countDown();
			if (!release.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("never told to release");
			}
			return held.fencingToken();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private void awaitRequestFiled(LockName name) throws InterruptedException {
		String requests = LockKeys.requests(this.holder.lockKey(name));
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.bench.zcard(requests) == 0 && System.nanoTime() - end < 0) {
			Thread.sleep(1);
		}
		assertThat(this.bench.zcard(requests)).as("requests in Redis's line").isPositive();
	}

	/**
	 * Check that the holder's template takes the lock again, through Redis, with a token
	 * above the given one.
	 */
	private void assertTakenAgainAbove(long token) {
		Optional<LockHandle> again = this.holder.tryAcquire(request(Duration.ofSeconds(2)));
		assertThat(again).as("the holder's template, taking the lock again").isPresent();
		try (LockHandle held = again.get()) {
			assertThat(held.fencingToken()).as("its token").isGreaterThan(token);
			assertThat(((RedisLockHandle) held).grant().token()).as("Redis's token for it")
				.isEqualTo(held.fencingToken());
		}
	}

	private void awaitSubscribed(LockName name) throws InterruptedException {
		String channel = this.holder.lockKey(name) + ":released";
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (subscribers(channel) < 1 && System.nanoTime() - end < 0) {
			Thread.sleep(1);
		}
		assertThat(subscribers(channel)).as("subscribers of %s", channel).isPositive();
		// Redis counts the subscriber before the client has read its confirmation.
		Thread.sleep(20);
	}

	private long subscribers(String channel) {
		List<?> counts = (List<?>) this.bench.command("PUBSUB", "NUMSUB", channel);
		return Long.parseLong(String.valueOf(counts.get(1)));
	}

	private void awaitWaiters(int waiters) throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.holder.waitingThreads() < waiters && System.nanoTime() - end < 0) {
			Thread.sleep(1);
		}
		assertThat(this.holder.waitingThreads()).as("callers waiting").isGreaterThanOrEqualTo(waiters);
	}

	private LockRequest request(Duration waitTime) {
		return LockRequest.builder(this.scope)
			.key("k")
			.lease(ResendBench.LEASE)
			.waitTime(waitTime)
			.autoRenew(false)
			.build();
	}

	/**
	 * A caller of the holder's template on a thread of its own that takes the lock and
	 * closes it when told; {@link #closed} says how the close ended: "returned" or "lease
	 * lost".
	 */
	private final class PassedHolder {

		final CountDownLatch held = new CountDownLatch(1);

		private final CountDownLatch closing = new CountDownLatch(1);

		final CompletableFuture<String> closed;

		volatile long shownToken;

		volatile long redisToken;

		private volatile LockHandle handle;

		PassedHolder() {
			this.closed = inBackground(() -> {
				LockHandle acquired = ResentCohortReleaseTests.this.holder.acquire(request(Duration.ofSeconds(60)));
				this.handle = acquired;
				this.shownToken = acquired.fencingToken();
				this.redisToken = ((RedisLockHandle) acquired).grant().token();
				this.held.countDown();
				try {
					this.closing.await();
					acquired.close();
					return "returned";
				}
				catch (LockLeaseLostException ex) {
					// Allowed: the second run finds the lock gone or taken, and cannot
					// tell that its own first run released it.
					return "lease lost";
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			});
		}

		void close() {
			this.closing.countDown();
		}

		LockName name() {
			return this.handle.name();
		}

	}

}
