package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The undo of an attempt whose reply never came is retried with the lost attempt's hold
 * id until Redis answers. It must never take the lock over as a hold left by a lost
 * reply: that would drop the hold a later, successful acquisition of the same thread took
 * meanwhile, and the undo's release would then delete the lock under that holder. The
 * undo joins such a hold as a re-entry and releases only its own hold id.
 */
class UndoTakeOverTests {

	private static final Duration T = Duration.ofMillis(1000);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void anUndoRetryDoesNotEndTheSameThreadsLaterHold() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server().host(), redis.server().port(), T);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			String key = template.lockKey(LockName.of("review", "next"));
			// Scripts loaded.
			template.acquire(request().build()).close();
			// t0 = now. A1 (hold H1) is written and stalls; it times out at T, and its
			// undo U1 (hold H1) is sent then, and times out at 2T; U2 is sent at 2T +
			// 100 ms.
			// The same thread tries again at 1.6T (A2, hold H2), answered when the pause
			// ends at 2.35T, before A2's timeout. Redis runs A1, U1, A2, U2 in that
			// order.
			redis.server().command("CLIENT", "PAUSE", "2350", "ALL");
			long t0 = System.nanoTime();
			assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> template.acquire(request().build()));
			sleepUntil(t0 + TimeUnit.MILLISECONDS.toNanos(1600));
			LockHandle second = template.acquire(request().waitTime(Duration.ofSeconds(5)).build());
			try {
				// U2's reply came with A2's; its release follows.
				Thread.sleep(500);
				Object exists = redis.server().command("EXISTS", key);
				Optional<LockHandle> other = CompletableFuture
					.supplyAsync(() -> template.tryAcquire(request().waitTime(Duration.ZERO).build()),
							this.connected.executor())
					.get(5, TimeUnit.SECONDS);
				other.ifPresent(LockHandle::close);
				assertThat(other)
					.as("another thread's try while this thread holds the lock (EXISTS was " + exists + ")")
					.isEmpty();
			}
			finally {
				try {
					second.close();
				}
				catch (RuntimeException ex) {
					// The assertion above reports a hold that was ended under it.
				}
			}
		}
		finally {
			factory.destroy();
		}
	}

	private static void sleepUntil(long nanos) throws InterruptedException {
		long left = nanos - System.nanoTime();
		if (left > 0) {
			TimeUnit.NANOSECONDS.sleep(left);
		}
	}

	private static LockRequest.Builder request() {
		return LockRequest.builder("review").key("next").lease(Duration.ofSeconds(30));
	}

}
