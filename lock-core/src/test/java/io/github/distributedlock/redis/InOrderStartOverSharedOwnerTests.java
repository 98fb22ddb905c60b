package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.HashSlots;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One custom owner in two processes (two templates on connections of their own): the
 * first takes a multi-lock across Cluster slots, the second re-enters its first lock
 * while the first waits for the second lock, and the first lock's lease (of the first
 * process's hold) runs out, so that the multi-lock starts over. Its start-over must
 * neither end nor shorten the second process's hold, nor may the second's release end the
 * multi-lock's, on either template.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InOrderStartOverSharedOwnerTests {

	private static final Duration LEASE = Duration.ofMillis(300);

	private static final Duration OTHER_LEASE = Duration.ofSeconds(3);

	private static final String OWNER = "shared";

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	private TestRedis redis;

	private RedisConnectionFactory firstFactory;

	private RedisConnectionFactory otherFactory;

	private RedisLockTemplate blocking;

	private ReactiveRedisLockTemplate reactive;

	private RedisLockTemplate other;

	@BeforeAll
	void startTemplates() {
		this.redis = TestRedis.cluster(topology::topology);
		this.firstFactory = this.redis.connectionFactory();
		this.otherFactory = this.redis.connectionFactory();
		this.blocking = RedisLockTemplate.builder(this.firstFactory).build();
		this.reactive = ReactiveRedisLockTemplate.builder((ReactiveRedisConnectionFactory) this.firstFactory).build();
		this.other = RedisLockTemplate.builder(this.otherFactory).build();
	}

	@AfterAll
	void stopTemplates() throws Exception {
		this.other.close();
		this.reactive.close();
		this.blocking.close();
		for (RedisConnectionFactory factory : List.of(this.firstFactory, this.otherFactory)) {
			if (factory instanceof DisposableBean disposable) {
				disposable.destroy();
			}
		}
	}

	@Test
	void shouldKeepTheOtherProcesssHoldWhenABlockingMultiLockStartsOver() throws Exception {
		assertBothHoldsKept("shared-blocking", (requests) -> CompletableFuture.supplyAsync(() -> {
			LockHandle handle = this.blocking.acquireAll(requests);
			return () -> {
				try {
					handle.close();
				}
				catch (LockLeaseLostException ex) {
					// a's short lease may end before the release.
				}
			};
		}));
	}

	@Test
	void shouldKeepTheOtherProcesssHoldWhenAReactiveMultiLockStartsOver() throws Exception {
		assertBothHoldsKept("shared-reactive",
				(requests) -> this.reactive.acquireAll(requests)
					.<Runnable>map((handle) -> () -> handle.release()
						.onErrorComplete(LockLeaseLostException.class)
						.block(Duration.ofSeconds(5)))
					.toFuture());
	}

	private void assertBothHoldsKept(String scope, Function<List<LockRequest>, CompletableFuture<Runnable>> start)
			throws Exception {
		Duration wait = Duration.ofSeconds(5);
		LockRequest a = LockRequest.builder(scope)
			.key("a")
			.owner(OWNER)
			.lease(LEASE)
			.autoRenew(false)
			.waitTime(wait)
			.build();
		LockRequest b = LockRequest.builder(scope).key("b").owner(OWNER).waitTime(wait).build();
		String keyA = this.blocking.lockKey(a.name());
		assertThat(HashSlots.slot(keyA)).isNotEqualTo(HashSlots.slot(this.blocking.lockKey(b.name())));
		assertThat(keyA).isLessThan(this.blocking.lockKey(b.name()));
		LockHandle holderOfB = this.blocking.acquire(LockRequest.builder(scope).key("b").owner("stranger").build());
		CompletableFuture<Runnable> granted = start.apply(List.of(a, b));
		await().atMost(Duration.ofSeconds(2)).until(() -> heldByTheOwner(keyA));
		LockHandle otherHold = this.other.acquire(LockRequest.builder(scope)
			.key("a")
			.owner(OWNER)
			.lease(OTHER_LEASE)
			.autoRenew(false)
			.waitTime(Duration.ZERO)
			.build());
		assertThat(this.redis.command("HGET", keyA, "holds")).as("a re-entered by the other process").isEqualTo("2");
		// The multi-lock's own lease of a ends while b is waited for: it starts over
		// once b is free.
		Thread.sleep(LEASE.toMillis() + 150);
		holderOfB.close();
		Runnable release = granted.get(10, TimeUnit.SECONDS);
		long pttl = (Long) this.redis.command("PTTL", keyA);
		long otherLeft = otherHold.remainingLease().toMillis();
		assertThat(this.redis.command("HGET", keyA, "holds")).as("both holds of a after the start-over").isEqualTo("2");
		// Read first, Redis's lease covers what the other process counts on (less the
		// milliseconds each side truncates), not the multi-lock's 300 ms.
		assertThat(pttl).as("the other process's lease of a, not shortened").isGreaterThanOrEqualTo(otherLeft - 2);
		assertThat(otherHold.isHeld()).isTrue();
		otherHold.close();
		assertThat(heldByTheOwner(keyA)).as("the multi-lock's hold of a, after the other's release").isTrue();
		assertThat(this.redis.command("HGET", keyA, "holds")).isEqualTo("1");
		release.run();
		assertThat(this.redis.command("EXISTS", keyA)).as("a free once both released").isEqualTo(0L);
	}

	private boolean heldByTheOwner(String key) {
		return LockOwners.digest(LockOwners.custom(OWNER)).equals(this.redis.command("HGET", key, "owner"));
	}

}
