package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The local line as a FIFO of places with offers of queued waiters
 * (docs/design/waiting-and-hand-off.md, "Offers of queued waiters") under waiters that
 * time out after a few milliseconds and are interrupted at random, while short holds are
 * handed over inside the JVM: no two holders at once, no waiter with a long wait time
 * that times out (a grant to a waiter that never wakes would hold the lock until its
 * lease), and nothing left in the line or in Redis at the end.
 * <p>
 * Its templates chain no waiters ({@code hintConnections(0)}): a chained head is never
 * offered a local hand-over (docs/design/waiting-and-hand-off.md, "The chained hint").
 */
class QueuedGrantStressTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldKeepTheLineLiveUnderTimeouts() throws Exception {
		stress(false);
	}

	@Test
	void shouldKeepTheLineLiveUnderTimeoutsAndInterrupts() throws Exception {
		stress(true);
	}

	private void stress(boolean interrupts) throws Exception {
		LettuceConnectionFactory second = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate one = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build(); RedisLockTemplate two = RedisLockTemplate.builder(second).hintConnections(0).build()) {
			String key = one.lockKey(LockName.of("stress", "line"));
			ContentionStress.Result result = ContentionStress.run(this.connected.executor(), 8,
					(thread) -> (thread < 6) ? one : two,
					(template,
							wait) -> template.tryAcquire(LockRequest.builder("stress")
								.key("line")
								.lease(Duration.ofSeconds(10))
								.waitTime(wait)
								.build()),
					interrupts, Duration.ofSeconds(4));
			System.out.printf("stress: %d acquired, %d interrupted, %d short timeouts, %d + %d grants%n",
					result.acquired(), result.interrupted(), result.shortTimeouts(), one.localGrants(),
					two.localGrants());
			assertThat(result.failures()).isEmpty();
			assertThat(result.acquired()).isPositive();
			assertThat(one.localGrants()).isPositive();
			assertThat(one.waitingThreads()).isZero();
			assertThat(two.waitingThreads()).isZero();
			assertThat(redis.server().command("EXISTS", key)).as("nothing left held").isEqualTo(0L);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
			long start = System.nanoTime();
			one.acquire(LockRequest.builder("stress").key("line").waitTime(Duration.ofSeconds(5)).build()).close();
			assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(1));
		}
		finally {
			second.destroy();
		}
	}

}
