package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockContext;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReactiveRedisLockTemplate#acquireAll(List)} against a real redis-server: every
 * lock or none, waiting for the one that is held, with the blocking engine's script and
 * late-grant rule, and cancellation that leaves nothing behind.
 */
class ReactiveMultiLockTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private ReactiveRedisLockTemplate template;

	private StringRedisTemplate raw;

	@BeforeEach
	void connect() {
		redis.server().command("FLUSHALL");
		this.factory = RedisConnections.standalone(redis.server());
		this.template = ReactiveRedisLockTemplate.builder(this.factory).build();
		this.raw = new StringRedisTemplate(this.factory);
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.factory.destroy();
	}

	private static LockRequest.Builder lock(String key) {
		return LockRequest.builder("multi").key(key);
	}

	@Test
	void takesEveryLockOrNoneAndWaitsForTheOneThatIsHeld() {
		ReactiveLockHandle b = this.template.acquire(lock("b").build()).block(BLOCK);
		Mono<ReactiveLockHandle> both = this.template
			.acquireAll(List.of(lock("a").waitTime(Duration.ofSeconds(20)).build(), lock("b").build()))
			.cache();
		both.subscribe();
		await().until(() -> this.raw.hasKey(LockKeys.requests(key("b"))));
		assertThat(locked("a")).as("nothing is taken while b is held").isFalse();
		b.release().block(BLOCK);
		ReactiveLockHandle handle = both.block(BLOCK);
		assertThat(locked("a")).isTrue();
		assertThat(locked("b")).isTrue();
		assertThat(handle.waited()).isTrue();
		assertThat(handle.isHeld().block(BLOCK)).isTrue();
		handle.release().block(BLOCK);
		assertThat(locked("a")).isFalse();
		assertThat(locked("b")).isFalse();
	}

	@Test
	void aTryOnceThatFindsOneLockHeldTakesNoneAndNamesIt() {
		try (RedisLockTemplate blocking = RedisLockTemplate.builder(this.factory).build();
				LockHandle held = blocking.acquire(lock("d").build())) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> this.template
					.acquireAll(List.of(lock("c").waitTime(Duration.ZERO).build(), lock("d").build()))
					.block(BLOCK))
				.satisfies((ex) -> assertThat(ex.getLockName().key()).isEqualTo("d"));
			assertThat(locked("c")).isFalse();
		}
	}

	@Test
	void excludesTheBlockingEngine() {
		try (RedisLockTemplate blocking = RedisLockTemplate.builder(this.factory).build()) {
			ReactiveLockHandle both = this.template.acquireAll(List.of(lock("e").build(), lock("f").build()))
				.block(BLOCK);
			assertThat(blocking.tryAcquire(lock("f").waitTime(Duration.ZERO).build())).isEmpty();
			both.release().block(BLOCK);
			try (LockHandle again = blocking.acquire(lock("f").build())) {
				assertThat(again.fencingToken()).isPositive();
			}
		}
	}

	@Test
	void cancellingWhileWaitingWithdrawsTheRequestAndTakesNothing() {
		ReactiveLockHandle h = this.template.acquire(lock("h").build()).block(BLOCK);
		Disposable waiting = this.template
			.acquireAll(List.of(lock("g").waitTime(Duration.ofSeconds(20)).build(), lock("h").build()))
			.subscribe();
		await().until(() -> this.raw.hasKey(LockKeys.requests(key("h"))));
		waiting.dispose();
		await().until(() -> !this.raw.hasKey(LockKeys.requests(key("h"))));
		await().until(() -> this.template.waitingSubscriptions() == 0);
		h.release().block(BLOCK);
		assertThat(locked("g")).isFalse();
		assertThat(locked("h")).isFalse();
	}

	@Test
	void aGrantThatComesAfterItsLeaseIsTakenAgainWithALeaseCountedAnew() {
		List<LockRequest> requests = List.of(lock("i").lease(Duration.ofMillis(300)).build(),
				lock("j").lease(Duration.ofMillis(300)).build());
		this.template.acquireAll(requests).flatMap(ReactiveLockHandle::release).block(BLOCK);
		redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
		ReactiveLockHandle handle = this.template.acquireAll(requests).block(BLOCK);
		assertThat(handle.remainingLease()).isGreaterThan(Duration.ofMillis(100));
		for (String key : List.of("i", "j")) {
			Long pttl = this.raw.getExpire(key(key), java.util.concurrent.TimeUnit.MILLISECONDS);
			assertThat(pttl).as("PTTL of %s", key).isGreaterThanOrEqualTo(handle.remainingLease().toMillis());
		}
		handle.release().block(BLOCK);
	}

	@Test
	void executeAllRunsTheWorkUnderEveryLockAndReleasesThem() {
		List<String> seen = this.template
			.executeAll(List.of(lock("k").build(), lock("l").build()),
					(hold) -> ReactiveLockContext.current()
						.map((context) -> context.fencingToken() + ":" + locked("k") + ":" + locked("l")))
			.collectList()
			.block(BLOCK);
		assertThat(seen).hasSize(1);
		assertThat(seen.get(0)).endsWith(":true:true");
		assertThat(locked("k")).isFalse();
		assertThat(locked("l")).isFalse();
	}

	@Test
	void overlappingMultiLocksInEitherOrderNeverDeadlockOrOverlap() {
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		List<LockRequest> ab = List.of(lock("m").waitTime(Duration.ofSeconds(20)).build(), lock("n").build());
		List<LockRequest> ba = List.of(lock("n").waitTime(Duration.ofSeconds(20)).build(), lock("m").build());
		List<Integer> done = Flux.range(0, 20)
			.flatMap((i) -> this.template.executeAll((i % 2 == 0) ? ab : ba, (hold) -> Mono.fromCallable(() -> {
				maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
				return i;
			}).delayElement(Duration.ofMillis(2)).doOnNext((value) -> inside.decrementAndGet())))
			.collectList()
			.block(BLOCK);
		assertThat(done).hasSize(20);
		assertThat(maxInside).hasValue(1);
	}

	private String key(String key) {
		return this.template.lockKey(lock(key).build());
	}

	private boolean locked(String key) {
		return Boolean.TRUE.equals(this.raw.hasKey(key(key)));
	}

}
