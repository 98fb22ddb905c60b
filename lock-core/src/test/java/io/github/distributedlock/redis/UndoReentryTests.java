package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The attempt that undoes an interrupted one carries the interrupted acquisition's hold
 * id, and releases only what it finds under that id: an outer hold of the same owner (a
 * re-entry on the same thread, or a custom owner shared by two threads) keeps its own
 * hold, and the lock stays taken until the outer handle is closed. Redis is stalled with
 * {@code CLIENT PAUSE}, so that the interrupted attempt runs (and re-enters) only after
 * its caller gave up.
 */
class UndoReentryTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void anInterruptedReentryLeavesTheOuterHold() throws Exception {
		try (RedisLockTemplate template = template()) {
			String key = template.lockKey(LockName.of("undo", "plain"));
			try (LockHandle outer = template.acquire(request("plain").build())) {
				interruptedWhilePaused(() -> template.acquire(request("plain").build()));
				assertThat(redis.server().command("HGET", key, "holds")).isEqualTo("1");
				assertThat(outer.isHeld()).isTrue();
			}
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		}
	}

	@Test
	void anInterruptedFairReentryLeavesTheOuterHold() throws Exception {
		try (RedisLockTemplate template = template()) {
			String key = template.lockKey(LockName.of("undo", "fair"));
			try (LockHandle outer = template.acquire(request("fair").fair(true).build())) {
				interruptedWhilePaused(() -> template.acquire(request("fair").fair(true).build()));
				assertThat(redis.server().command("HGET", key, "holds")).isEqualTo("1");
				assertThat(redis.server().command("ZCARD", LockKeys.fairQueue(key))).isEqualTo(0L);
				assertThat(outer.isHeld()).isTrue();
			}
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		}
	}

	@Test
	void anInterruptedMultiLockReentryLeavesTheOuterHold() throws Exception {
		try (RedisLockTemplate template = template()) {
			String first = template.lockKey(LockName.of("undo", "multi-a"));
			String second = template.lockKey(LockName.of("undo", "multi-b"));
			// Its script is loaded.
			template.acquireAll(List.of(request("multi-c").build(), request("multi-d").build())).close();
			try (LockHandle outer = template.acquire(request("multi-a").build())) {
				interruptedWhilePaused(
						() -> template.acquireAll(List.of(request("multi-a").build(), request("multi-b").build())));
				assertThat(redis.server().command("HGET", first, "holds")).isEqualTo("1");
				assertThat(redis.server().command("EXISTS", second)).isEqualTo(0L);
				assertThat(outer.isHeld()).isTrue();
			}
			assertThat(redis.server().command("EXISTS", first)).isEqualTo(0L);
		}
	}

	@Test
	void anInterruptedAttemptOfASharedCustomOwnerLeavesTheOtherThreadsHold() throws Exception {
		try (RedisLockTemplate template = template()) {
			String key = template.lockKey(LockName.of("undo", "custom"));
			try (LockHandle outer = template.acquire(request("custom").owner("shared").build())) {
				CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
					try {
						interruptedWhilePaused(() -> template.acquire(request("custom").owner("shared").build()));
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}, this.connected.executor());
				other.get(10, TimeUnit.SECONDS);
				assertThat(redis.server().command("HGET", key, "holds")).isEqualTo("1");
				assertThat(outer.isHeld()).isTrue();
			}
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		}
	}

	/**
	 * Run an acquisition on this thread while Redis is paused, interrupting it once its
	 * attempt is written, and check that it reports the interrupt.
	 */
	private void interruptedWhilePaused(Callable<LockHandle> acquisition) throws Exception {
		Thread self = Thread.currentThread();
		redis.server().command("CLIENT", "PAUSE", "600", "ALL");
		CompletableFuture.runAsync(self::interrupt, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
		try {
			assertThatExceptionOfType(LockInterruptedException.class).isThrownBy(() -> acquisition.call().close());
		}
		finally {
			Thread.interrupted();
		}
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("undo").key(key).lease(Duration.ofSeconds(30));
	}

	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connected.connectionFactory()).build();
	}

}
