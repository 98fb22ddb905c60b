package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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
 * One interrupt while Redis is stalled (longer than the command timeout): the attempt
 * that undoes the interrupted one waits up to one command timeout for its reply, and what
 * follows it (a fair waiter's leave, the withdrawal of a head's request, a multi-lock
 * waiter's withdrawal from every lock's line) is not waited for, so the acquisition ends
 * after about one command timeout, not one per lock. What it sent still runs once Redis
 * is back: no place stays in the fair queue and no request in a lock's line.
 */
class InterruptDuringStallTests {

	private static final long PAUSE_MILLIS = 9000;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void aFairWaiterEndsAfterOneCommandTimeout() throws Exception {
		try (RedisLockTemplate holder = template(); RedisLockTemplate waiter = template()) {
			String key = holder.lockKey(LockName.of("stall", "fair"));
			try (LockHandle held = holder.acquire(request("fair").fair(true).build())) {
				// The leave's script is loaded: a NOSCRIPT reply that comes after the
				// command timeout is never followed by an EVAL.
				assertThat(waiter.tryAcquire(request("fair").fair(true).waitTime(Duration.ofMillis(50)).build()))
					.isEmpty();
				interruptedDuringStall(
						() -> waiter.acquire(request("fair").fair(true).waitTime(Duration.ofSeconds(60)).build()));
				// The fair waiter timeout is 60 s: only a leave takes the place out.
				await().atMost(Duration.ofSeconds(3))
					.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.fairQueue(key))));
				assertThat(held.isHeld()).isTrue();
			}
		}
	}

	@Test
	void aHeadThatFiledARequestEndsAfterOneCommandTimeout() throws Exception {
		try (RedisLockTemplate waiter = template()) {
			String key = waiter.lockKey(LockName.of("stall", "plain"));
			// Its scripts are loaded.
			waiter.acquire(request("plain").build()).close();
			// Another process's hold, which ends in 1.5 s: the waiter heads its line,
			// files its request, and sleeps until then.
			redis.server().command("HSET", key, "owner", "other", "holds", "1", "token", "1");
			redis.server().command("PEXPIRE", key, "1500");
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			Thread thread = new Thread(() -> {
				try {
					waiter.acquire(request("plain").waitTime(Duration.ofSeconds(60)).build()).close();
				}
				catch (Throwable ex) {
					thrown.set(ex);
				}
			});
			thread.start();
			await().atMost(Duration.ofSeconds(1))
				.until(() -> Long.valueOf(1).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
			long paused = System.nanoTime();
			redis.server().command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL");
			// It wakes at the hold's end, and its attempt waits for the paused server.
			Thread.sleep(2000);
			long interrupted = System.nanoTime();
			thread.interrupt();
			thread.join(PAUSE_MILLIS - 3000);
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interrupted);
			assertThat(thread.isAlive()).isFalse();
			assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
			assertThat(millis).isLessThan(RedisConnections.COMMAND_TIMEOUT.toMillis() + 1500);
			Thread.sleep(Math.max(0, PAUSE_MILLIS + 200 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused)));
			// The request's validity is 30 s: only a withdrawal takes it out.
			await().atMost(Duration.ofSeconds(3))
				.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
		}
	}

	@Test
	void aMultiLockWaiterEndsAfterOneCommandTimeout() throws Exception {
		try (RedisLockTemplate holder = template(); RedisLockTemplate waiter = template()) {
			// Its script is loaded.
			waiter.acquireAll(List.of(request("x").build(), request("y").build())).close();
			List<String> keys = List.of("a", "b", "c")
				.stream()
				.map((name) -> holder.lockKey(LockName.of("stall", name)))
				.toList();
			try (LockHandle held = holder.acquire(request("c").build())) {
				interruptedDuringStall(
						() -> waiter.acquireAll(List.of(request("a").waitTime(Duration.ofSeconds(60)).build(),
								request("b").build(), request("c").build())));
				// The request's validity is 30 s: only a withdrawal takes it out.
				for (String key : keys) {
					await().atMost(Duration.ofSeconds(3))
						.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
				}
				assertThat(redis.server().command("EXISTS", keys.get(0), keys.get(1))).isEqualTo(0L);
				assertThat(held.isHeld()).isTrue();
			}
		}
	}

	/**
	 * Stall Redis, interrupt the acquisition once its attempt is written, and check that
	 * it ends within one command timeout (and a margin); return once the stall is over.
	 */
	private void interruptedDuringStall(Callable<LockHandle> acquisition) throws Exception {
		long paused = System.nanoTime();
		redis.server().command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL");
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			try {
				acquisition.call().close();
			}
			catch (Throwable ex) {
				thrown.set(ex);
			}
		});
		thread.start();
		// Its attempt is written, and waits for the paused server.
		Thread.sleep(200);
		long interrupted = System.nanoTime();
		thread.interrupt();
		thread.join(PAUSE_MILLIS - 1000);
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interrupted);
		assertThat(thread.isAlive()).isFalse();
		assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
		assertThat(millis).isLessThan(RedisConnections.COMMAND_TIMEOUT.toMillis() + 1500);
		Thread.sleep(Math.max(0, PAUSE_MILLIS + 200 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused)));
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("stall").key(key).lease(Duration.ofSeconds(30));
	}

	/**
	 * A template whose heads sleep on the channel, then attempt into the stall.
	 */
	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connected.connectionFactory())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
	}

}
