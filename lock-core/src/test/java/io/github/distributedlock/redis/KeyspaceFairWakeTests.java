package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fair waiters that wait by keyspace events. A release deletes the lock, and the keyspace
 * {@code del} arrives before the release's {@code next:} that names the next waiter: the
 * named waiter must be woken by the name, or it sleeps until the lease it last heard of.
 * Found by a review: the second in line took the lock 2.4 to 5.3 s after the first
 * released it, in most runs, where pub/sub waiters took 2 to 32 ms.
 */
class KeyspaceFairWakeTests {

	private static final Duration LEASE = Duration.ofSeconds(6);

	private static final String KEY = "lock:{keyspace-fair:k}";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void theSecondInLineIsWokenByItsNameWhenTheFirstReleases() throws Exception {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "Kgx");
		for (int round = 0; round < 3; round++) {
			try (RedisLockTemplate holder = blocking();
					RedisLockTemplate first = blocking();
					RedisLockTemplate second = blocking()) {
				LockHandle held = holder.acquire(fair().lease(LEASE).autoRenew(false).build());
				Future<Long> firstHold = this.connected.executor().submit(() -> {
					try (LockHandle taken = first.acquire(fair().build())) {
						Thread.sleep(200);
					}
					return System.nanoTime();
				});
				await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 1);
				Future<LockHandle> secondWait = this.connected.executor().submit(() -> second.acquire(fair().build()));
				await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 2);
				held.close();
				long firstReleased = firstHold.get(10, TimeUnit.SECONDS);
				try (LockHandle taken = secondWait.get(15, TimeUnit.SECONDS)) {
					assertThat(Duration.ofNanos(System.nanoTime() - firstReleased))
						.as("round %d: taken after the first released", round)
						.isLessThan(Duration.ofSeconds(1));
				}
			}
		}
	}

	@Test
	void aReactiveSecondInLineIsWokenByItsNameWhenTheFirstReleases() {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "Kgx");
		for (int round = 0; round < 3; round++) {
			try (ReactiveRedisLockTemplate holder = reactive();
					ReactiveRedisLockTemplate first = reactive();
					ReactiveRedisLockTemplate second = reactive()) {
				ReactiveLockHandle held = holder.acquire(fair().lease(LEASE).autoRenew(false).build())
					.block(Duration.ofSeconds(10));
				Mono<Long> firstHold = first.acquire(fair().build())
					.delayUntil((taken) -> Mono.delay(Duration.ofMillis(200)))
					.flatMap((taken) -> taken.release().thenReturn(System.nanoTime()))
					.cache();
				firstHold.subscribe();
				await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 1);
				Mono<ReactiveLockHandle> secondWait = second.acquire(fair().build()).cache();
				secondWait.subscribe();
				await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 2);
				held.release().block(Duration.ofSeconds(10));
				long firstReleased = firstHold.block(Duration.ofSeconds(10));
				ReactiveLockHandle taken = secondWait.block(Duration.ofSeconds(15));
				assertThat(Duration.ofNanos(System.nanoTime() - firstReleased))
					.as("round %d: taken after the first released", round)
					.isLessThan(Duration.ofSeconds(1));
				taken.release().block(Duration.ofSeconds(10));
			}
		}
	}

	private long queued() {
		Object count = redis.server().command("ZCARD", LockKeys.fairQueue(KEY));
		return (count != null) ? ((Number) count).longValue() : 0;
	}

	private static LockRequest.Builder fair() {
		return LockRequest.builder("keyspace-fair").key("k").fair(true).waitTime(Duration.ofSeconds(30));
	}

	private static LockDefaults keyspace() {
		return LockDefaults.STANDARD.withWaitStrategy(WaitStrategy.KEYSPACE_EVENTS);
	}

	private RedisLockTemplate blocking() {
		// A heartbeat (a third of the waiter timeout) later than the lease.
		return RedisLockTemplate.builder(this.connected.connectionFactory())
			.defaults(keyspace())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
	}

	private ReactiveRedisLockTemplate reactive() {
		return ReactiveRedisLockTemplate.builder(this.connected.connectionFactory())
			.defaults(keyspace())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
	}

}
