package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adversarial cases of the offers of queued waiters (docs/design/waiting-and-hand-off.md,
 * "Offers of queued waiters"): a release that takes the offer of the first place before
 * its thread runs.
 * <p>
 * To take a queued offer, the release must come right after the place before it left:
 * here one thread {@code x} holds the lock under a custom owner and waits for it, as the
 * head that offers itself first, under its thread's owner; interrupted, it leaves the
 * line with nothing to withdraw in Redis and releases its hold at once, so its release
 * finds the waiter {@code c} queued behind it still to wake up (found by an adversarial
 * review: in the run that found it, {@code c}'s thread ran 5 us after the release took
 * its offer; about a third of the rounds take it on a busy 2-core machine). A shutdown
 * during that release must still fail {@code c}, as it fails an offered head
 * (HandOverAttackTests), and release the grant it no longer wants.
 * <p>
 * Its templates chain no waiters ({@code hintConnections(0)}): a chained head is never
 * offered a local hand-over (docs/design/waiting-and-hand-off.md, "The chained hint").
 */
class QueuedGrantAttackTests {

	private static final int ROUNDS = 20;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldFailAQueuedWaiterGrantedTheLockWhileItsTemplateShutsDown() throws Exception {
		for (int round = 0; round < ROUNDS; round++) {
			RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
				.hintConnections(0)
				.build();
			String key = template.lockKey(LockName.of("queued", "shutdown"));
			// Warm: the line stays subscribed, so the waiters below join it at once.
			try (LockHandle warm = template.acquire(request("x").build())) {
				assertThat(template.tryAcquire(request("w").waitTime(Duration.ofMillis(100)).build())).isEmpty();
			}
			CompletableFuture<Thread> xThread = new CompletableFuture<>();
			Future<Object> x = this.connected.executor().submit(() -> {
				xThread.complete(Thread.currentThread());
				LockHandle held = template.acquire(request("x").build());
				Object outcome;
				try {
					// The head: sleeps offering itself to its own other owner's hold.
					outcome = template.tryAcquire(request(null).build());
				}
				catch (LockInterruptedException ex) {
					outcome = ex;
				}
				Thread.interrupted();
				held.close();
				return outcome;
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
			Future<Object> c = this.connected.executor().submit(() -> outcome(template, request(null).build()));
			await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 2);
			Thread.sleep(100);
			// x's release is held up in Redis, and the template shuts down meanwhile.
			redis.server().command("CLIENT", "PAUSE", "400", "WRITE");
			xThread.get().interrupt();
			Thread.sleep(150);
			template.close();
			assertThat(x.get(10, TimeUnit.SECONDS)).isInstanceOf(LockInterruptedException.class);
			Object cOutcome = c.get(10, TimeUnit.SECONDS);
			assertThat(cOutcome).as("c, round %d (%d grants)", round, template.localGrants())
				.isInstanceOf(LockAccessException.class);
			assertThat(redis.server().command("EXISTS", key)).as("an unwanted grant released").isEqualTo(0L);
		}
	}

	private static Object outcome(RedisLockTemplate template, LockRequest request) {
		try {
			return template.acquire(request);
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	private static LockRequest.Builder request(@Nullable String owner) {
		return LockRequest.builder("queued")
			.key("shutdown")
			.owner(owner)
			.lease(Duration.ofSeconds(10))
			.waitTime(Duration.ofSeconds(20));
	}

}
