package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.HashSlots;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.reactive.ReactiveAcquisitions;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A multi-lock taken lock by lock (Cluster keys in several hash slots) releases the locks
 * it took on its way when it fails or takes them again from the first: its caller never
 * had them, so none may stay kept for its minimum hold, as no grant that nobody uses is.
 * Kept, a lock whose minimum hold is its lease stayed taken by nobody until its lease
 * ended after a failed call, and a start-over could not take back the lock it had just
 * released, and timed out, on either template. The same holds for a reactive handle that
 * an operator of the template drops on its way to a subscriber that cancelled, which the
 * template's discard hook releases ({@link ReactiveAcquisitions#releaseDropped}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InOrderMultiLockMinimumHoldTests {

	private static final Duration KEEP = Duration.ofSeconds(10);

	private static final Duration SHORT_LEASE = Duration.ofMillis(300);

	private static final String CALLER = "caller";

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	private RedisConnectionFactory connectionFactory;

	private TestRedis redis;

	private RedisLockTemplate blocking;

	private ReactiveRedisLockTemplate reactive;

	@BeforeAll
	void startTemplates() {
		this.redis = TestRedis.cluster(topology::topology);
		this.connectionFactory = this.redis.connectionFactory();
		this.blocking = RedisLockTemplate.builder(this.connectionFactory).build();
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

	@Test
	void shouldFreeALockABlockingMultiLockTookBeforeItTimedOut() {
		assertFreedAfterATimeout("keep-failed-blocking", (requests) -> () -> this.blocking.acquireAll(requests));
	}

	@Test
	void shouldFreeALockAReactiveMultiLockTookBeforeItTimedOut() {
		assertFreedAfterATimeout("keep-failed-reactive",
				(requests) -> () -> this.reactive.acquireAll(requests).block(Duration.ofSeconds(10)));
	}

	@Test
	void shouldTakeAgainALockABlockingMultiLockReleasedToStartOver() throws Exception {
		assertTakenAgainAfterAStartOver("keep-restart-blocking", (requests) -> {
			CompletableFuture<Object> all = new CompletableFuture<>();
			new Thread(() -> {
				try {
					LockHandle handle = this.blocking.acquireAll(requests);
					all.complete(handle);
					closeQuietly(handle);
				}
				catch (RuntimeException ex) {
					all.completeExceptionally(ex);
				}
			}).start();
			return all;
		});
	}

	@Test
	void shouldTakeAgainALockAReactiveMultiLockReleasedToStartOver() throws Exception {
		assertTakenAgainAfterAStartOver("keep-restart-reactive", (requests) -> this.reactive.acquireAll(requests)
			.flatMap((handle) -> handle.release().onErrorComplete(LockLeaseLostException.class).thenReturn(handle))
			.map(Object.class::cast)
			.toFuture());
	}

	@Test
	void shouldFreeAReactiveHandleDroppedOnItsWay() {
		LockRequest a = LockRequest.builder("keep-dropped")
			.key("a")
			.owner(CALLER)
			.lease(KEEP)
			.holdAtLeast(KEEP)
			.build();
		ReactiveLockHandle dropped = this.reactive.acquire(a).block(Duration.ofSeconds(10));
		// As the discard hook does for a handle its subscriber never got.
		ReactiveAcquisitions.releaseDropped(dropped);
		await("a free for a stranger, though it has a minimum hold: nobody had it").atMost(Duration.ofSeconds(2))
			.until(() -> takenByAStranger(a));
	}

	@Test
	void shouldFreeTheLocksOfAReactiveMultiLockDroppedOnItsWay() {
		List<LockRequest> requests = List.of("a", "b")
			.stream()
			.map((key) -> LockRequest.builder("keep-dropped-all")
				.key(key)
				.owner(CALLER)
				.lease(KEEP)
				.holdAtLeast(KEEP)
				.build())
			.toList();
		assertAcrossSlots(requests.get(0), requests.get(1));
		ReactiveLockHandle dropped = this.reactive.acquireAll(requests).block(Duration.ofSeconds(10));
		ReactiveAcquisitions.releaseDropped(dropped);
		for (LockRequest request : requests) {
			await(request.name() + " free for a stranger, though it has a minimum hold: nobody had it")
				.atMost(Duration.ofSeconds(2))
				.until(() -> takenByAStranger(request));
		}
	}

	/**
	 * Take a (kept for as long as its lease) and wait for b, which a stranger holds,
	 * until the wait time runs out: a must then be free for anyone, at once.
	 */
	private void assertFreedAfterATimeout(String scope, Function<List<LockRequest>, Runnable> call) {
		Duration wait = Duration.ofMillis(300);
		LockRequest a = LockRequest.builder(scope)
			.key("a")
			.owner(CALLER)
			.lease(KEEP)
			.holdAtLeast(KEEP)
			.waitTime(wait)
			.build();
		LockRequest b = LockRequest.builder(scope).key("b").owner(CALLER).waitTime(wait).build();
		assertAcrossSlots(a, b);
		try (LockHandle holderOfB = this.blocking.acquire(LockRequest.builder(scope).key("b").build())) {
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> call.apply(List.of(a, b)).run());
		}
		await("a free for a stranger, though it has a minimum hold: nobody had it").atMost(Duration.ofSeconds(2))
			.until(() -> takenByAStranger(a));
	}

	/**
	 * Hold c; let the multi-lock take a (a short explicit lease) and b (kept for as long
	 * as its lease), and wait for c until a's lease ran out; then free c: the multi-lock
	 * starts over, releasing b, and must take b again well within its wait time.
	 */
	private void assertTakenAgainAfterAStartOver(String scope,
			Function<List<LockRequest>, CompletableFuture<Object>> start) throws Exception {
		Duration wait = Duration.ofSeconds(2);
		LockRequest a = LockRequest.builder(scope)
			.key("a")
			.owner(CALLER)
			.lease(SHORT_LEASE)
			.autoRenew(false)
			.waitTime(wait)
			.build();
		LockRequest b = LockRequest.builder(scope)
			.key("b")
			.owner(CALLER)
			.lease(KEEP)
			.holdAtLeast(KEEP)
			.waitTime(wait)
			.build();
		LockRequest c = LockRequest.builder(scope).key("c").owner(CALLER).waitTime(wait).build();
		assertAcrossSlots(a, b);
		assertAcrossSlots(b, c);
		LockHandle holderOfC = this.blocking.acquire(LockRequest.builder(scope).key("c").build());
		CompletableFuture<Object> granted;
		try {
			granted = start.apply(List.of(a, b, c));
			await().atMost(Duration.ofSeconds(1)).until(() -> heldBy(b, CALLER));
			// a's lease ends while c is waited for.
			Thread.sleep(SHORT_LEASE.toMillis() + 150);
		}
		finally {
			holderOfC.close();
		}
		assertThat(granted).as("granted, b taken again after the start-over released it")
			.succeedsWithin(Duration.ofSeconds(5));
	}

	private boolean heldBy(LockRequest request, String owner) {
		Object held = this.redis.command("HGET", this.blocking.lockKey(request.name()), "owner");
		return LockOwners.digest(LockOwners.custom(owner)).equals(held);
	}

	private boolean takenByAStranger(LockRequest request) {
		Optional<LockHandle> taken = this.blocking.tryAcquire(
				LockRequest.builder(request.name().scope()).key(request.name().key()).waitTime(Duration.ZERO).build());
		taken.ifPresent(LockHandle::close);
		return taken.isPresent();
	}

	private void assertAcrossSlots(LockRequest first, LockRequest second) {
		String a = this.blocking.lockKey(first.name());
		String b = this.blocking.lockKey(second.name());
		assertThat(HashSlots.slot(a)).isNotEqualTo(HashSlots.slot(b));
		assertThat(a).isLessThan(b);
	}

	private static void closeQuietly(LockHandle handle) {
		try {
			handle.close();
		}
		catch (LockLeaseLostException ex) {
			// a's short lease may end before the release.
		}
	}

}
