package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An attempt whose reply never reaches its caller (an interrupt threw it away, or the
 * command timed out) may still run once Redis gets to it, and join a fair queue or file a
 * request in a lock's line: what it may have done is undone, or the place and the request
 * would stay until the fair waiter timeout or the request's validity, and a release would
 * name or reserve the lock for a waiter that has gone. Redis is stalled with
 * {@code CLIENT PAUSE}, so that the attempt runs only after its caller gave up.
 */
class UnansweredAttemptTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void anInterruptedFirstFairAttemptLeavesNoPlaceInTheQueue() throws Exception {
		try (RedisLockTemplate holder = template(); RedisLockTemplate waiter = template()) {
			String key = holder.lockKey(LockName.of("unanswered", "fair"));
			try (LockHandle held = holder.acquire(request("fair").fair(true).build())) {
				// Its script is loaded: the waiter's first EVALSHA runs once the pause
				// ends.
				redis.server().command("CLIENT", "PAUSE", "600", "ALL");
				AtomicReference<Throwable> thrown = new AtomicReference<>();
				Thread thread = new Thread(() -> {
					try {
						waiter.acquire(request("fair").fair(true).waitTime(Duration.ofSeconds(30)).build()).close();
					}
					catch (Throwable ex) {
						thrown.set(ex);
					}
				});
				thread.start();
				// Its first attempt is written, and waits for the paused server.
				Thread.sleep(200);
				thread.interrupt();
				thread.join(TimeUnit.SECONDS.toMillis(5));
				assertThat(thread.isAlive()).isFalse();
				assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
				// The fair waiter timeout is 60 s: only a leave takes the place out.
				await().atMost(Duration.ofSeconds(3))
					.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.fairQueue(key))));
				assertThat(held.isHeld()).isTrue();
			}
		}
	}

	/**
	 * The shape the simulation's seed 2133 once showed: a fair waiter interrupted while
	 * its first attempt is in flight, which Redis grants only after the command timeout,
	 * and the same thread's next acquisition. The interrupt's end is told once what the
	 * run sent settled (the undo of the unanswered attempt, sent on the same connection
	 * before the next attempt), so the thread takes the lock again and is not refused as
	 * a self-deadlock.
	 */
	@Test
	void aFairWaiterInterruptedWithAGrantInFlightTakesTheLockAgain() throws Exception {
		try (RedisLockTemplate waiter = template()) {
			String key = waiter.lockKey(LockName.of("unanswered", "again"));
			// Its script is loaded: the first EVALSHA runs once the pause ends.
			waiter.acquire(request("again").fair(true).build()).close();
			// Longer than the command timeout (RedisConnections.COMMAND_TIMEOUT): the
			// attempt runs, and takes the free lock, after its caller gave up.
			redis.server().command("CLIENT", "PAUSE", "2600", "ALL");
			AtomicReference<Throwable> interrupted = new AtomicReference<>();
			AtomicReference<Throwable> again = new AtomicReference<>();
			AtomicReference<Boolean> held = new AtomicReference<>(false);
			Thread thread = new Thread(() -> {
				try {
					waiter.acquire(request("again").fair(true).waitTime(Duration.ofSeconds(30)).build()).close();
				}
				catch (Throwable ex) {
					interrupted.set(ex);
				}
				// The interrupt stays set after the acquisition it stopped.
				Thread.interrupted();
				try (LockHandle handle = waiter
					.acquire(request("again").fair(true).waitTime(Duration.ofSeconds(10)).build())) {
					held.set(handle.isHeld());
				}
				catch (Throwable ex) {
					again.set(ex);
				}
			});
			thread.start();
			// Its first attempt is written, and waits for the paused server.
			Thread.sleep(200);
			thread.interrupt();
			thread.join(TimeUnit.SECONDS.toMillis(15));
			assertThat(thread.isAlive()).isFalse();
			assertThat(interrupted.get()).isInstanceOf(LockInterruptedException.class);
			assertThat(again.get()).isNull();
			assertThat(held.get()).isTrue();
			await().atMost(Duration.ofSeconds(3))
				.until(() -> Long.valueOf(0).equals(redis.server().command("EXISTS", key)));
		}
	}

	@Test
	void aMultiLockAttemptWithoutAReplyLeavesNoRequestInAnyLine() throws Exception {
		try (RedisLockTemplate holder = template(); RedisLockTemplate waiter = template()) {
			String second = holder.lockKey(LockName.of("unanswered", "b"));
			// Its script loaded: a first EVALSHA would fail with NOSCRIPT when it ran.
			waiter.acquireAll(List.of(request("c").build(), request("d").build())).close();
			try (LockHandle held = holder.acquire(request("b").build())) {
				// Longer than the command timeout (RedisConnections.COMMAND_TIMEOUT): the
				// attempt runs after its caller gave up, blocked on the second lock,
				// and files its request in that lock's line.
				redis.server().command("CLIENT", "PAUSE", "2600", "ALL");
				CompletableFuture<LockHandle> all = CompletableFuture.supplyAsync(
						() -> waiter.acquireAll(
								List.of(request("a").waitTime(Duration.ofSeconds(30)).build(), request("b").build())),
						this.connected.executor());
				assertThat(all).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingRootCause().isNotNull();
				assertThat(all.handle((handle, ex) -> ex).get()).hasCauseInstanceOf(LockAccessException.class);
				// The request's validity is 30 s: only a withdrawal takes it out.
				await().atMost(Duration.ofSeconds(5))
					.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.requests(second))));
				assertThat(held.isHeld()).isTrue();
			}
		}
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("unanswered").key(key).lease(Duration.ofSeconds(30));
	}

	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connected.connectionFactory())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
	}

}
