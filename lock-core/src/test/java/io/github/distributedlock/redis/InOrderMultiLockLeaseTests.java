package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.HashSlots;
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

/**
 * A multi-lock taken lock by lock (Cluster keys in several hash slots) whose first lock,
 * with an explicit lease and no watchdog, runs out while the second is waited for, and
 * which a stranger then takes: the multi-lock must not be granted while the stranger
 * holds it, on either template. Found by the simulation (seed 1020 of its in-order runs).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InOrderMultiLockLeaseTests {

	private static final Duration LEASE = Duration.ofMillis(300);

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	private RedisConnectionFactory connectionFactory;

	private RedisLockTemplate blocking;

	private ReactiveRedisLockTemplate reactive;

	@BeforeAll
	void startTemplates() {
		this.connectionFactory = TestRedis.cluster(topology::topology).connectionFactory();
		this.blocking = RedisLockTemplate.builder(this.connectionFactory)
			.defaults(LockDefaults.STANDARD.withWaitTime(Duration.ofSeconds(5)))
			.build();
		this.reactive = ReactiveRedisLockTemplate.builder((ReactiveRedisConnectionFactory) this.connectionFactory)
			.build();
	}

	@AfterAll
	void stopTemplates() throws Exception {
		this.reactive.close();
		this.blocking.close();
		if (this.connectionFactory instanceof DisposableBean disposable) {
			disposable.destroy();
		}
	}

	private static List<LockRequest> shortLeases(String scope) {
		return List.of("a", "b")
			.stream()
			.map((key) -> LockRequest.builder(scope)
				.key(key)
				.lease(LEASE)
				.autoRenew(false)
				.waitTime(Duration.ofSeconds(8))
				.build())
			.toList();
	}

	@Test
	void shouldNotGrantABlockingMultiLockWhoseFirstLockRanOutAndWasTaken() throws Exception {
		List<LockRequest> requests = shortLeases("inorder-blocking");
		CompletableFuture<LockHandle> all = new CompletableFuture<>();
		Stranger stranger = grantedWhileAStrangerHoldsTheFirst("inorder-blocking", requests, () -> {
			Thread caller = new Thread(() -> {
				try {
					all.complete(this.blocking.acquireAll(requests));
				}
				catch (RuntimeException ex) {
					all.completeExceptionally(ex);
				}
			});
			caller.start();
			return all;
		});
		LockHandle handle = all.get(10, TimeUnit.SECONDS);
		try (handle) {
			assertThat(stranger.grantedMeanwhile()).as("granted while a stranger held a").isFalse();
			assertThat(handle.fencingToken()).as("a's token, taken after the stranger's")
				.isGreaterThan(stranger.token());
		}
		catch (LockLeaseLostException ex) {
			// The short lease may end before the release: nothing to release then.
		}
	}

	@Test
	void shouldNotGrantAReactiveMultiLockWhoseFirstLockRanOutAndWasTaken() throws Exception {
		List<LockRequest> requests = shortLeases("inorder-reactive");
		CompletableFuture<ReactiveLockHandle> all = new CompletableFuture<>();
		Stranger stranger = grantedWhileAStrangerHoldsTheFirst("inorder-reactive", requests,
				() -> this.reactive.acquireAll(requests).toFuture().thenApply((handle) -> {
					all.complete(handle);
					return handle;
				}));
		ReactiveLockHandle handle = all.get(10, TimeUnit.SECONDS);
		assertThat(stranger.grantedMeanwhile()).as("granted while a stranger held a").isFalse();
		assertThat(handle.fencingToken()).as("a's token, taken after the stranger's").isGreaterThan(stranger.token());
		// The short lease may end before the release: nothing to release then.
		handle.release().onErrorComplete(LockLeaseLostException.class).block(Duration.ofSeconds(5));
	}

	/**
	 * Hold b, start the multi-lock (which takes a at once, then waits for b), let a's
	 * lease run out, have a stranger take a, release b while the stranger holds a, and
	 * have the stranger release a 600 ms later.
	 * @return whether the multi-lock was granted in those 600 ms, and the stranger's
	 * token
	 */
	private Stranger grantedWhileAStrangerHoldsTheFirst(String scope, List<LockRequest> requests,
			Supplier<CompletableFuture<?>> start) throws Exception {
		String a = this.blocking.lockKey(requests.get(0).name());
		String b = this.blocking.lockKey(requests.get(1).name());
		assertThat(HashSlots.slot(a)).isNotEqualTo(HashSlots.slot(b));
		assertThat(a).isLessThan(b);
		LockHandle holderOfB = this.blocking.acquire(LockRequest.builder(scope).key("b").build());
		CompletableFuture<?> granted = start.get();
		// a is taken at once, and its lease ends while b is waited for.
		Thread.sleep(LEASE.toMillis() + 400);
		LockHandle stranger = this.blocking.tryAcquire(LockRequest.builder(scope).key("a").build()).orElse(null);
		long token = (stranger != null) ? stranger.fencingToken() : -1;
		assertThat(stranger).as("a, whose lease ran out, taken by a stranger").isNotNull();
		holderOfB.close();
		boolean early;
		try {
			granted.get(600, TimeUnit.MILLISECONDS);
			early = true;
		}
		catch (TimeoutException ex) {
			early = false;
		}
		finally {
			stranger.close();
		}
		return new Stranger(early, token);
	}

	private record Stranger(boolean grantedMeanwhile, long token) {
	}

}
