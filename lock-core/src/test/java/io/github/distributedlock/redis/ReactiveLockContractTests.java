package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockContext;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.WaitStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract of the reactive template, on every topology it runs on (standalone,
 * Sentinel, Cluster, Redis 6.2, Valkey 8.0) and with each of its wait strategies:
 * exclusion across subscribers and with blocking callers, strictly increasing fencing
 * tokens, wake-up on release, an abandoned lock noticed when its lease ends, timeouts
 * that name the lock, a lost lease reported without touching the next holder, extension,
 * and cancellation. Each row starts its servers once. Read/write locks and permits too;
 * each subscription is its own owner, so reentrancy is not part of it. Keyspace rows run
 * where the blocking suite runs them: not on Cluster. {@code -Dcontract.topologies}
 * selects rows as for {@link RedisContractSuite}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ParameterizedClass(name = "{0} {1}")
@MethodSource("rows")
class ReactiveLockContractTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	@Parameter(0)
	ContractTopology topology;

	@Parameter(1)
	WaitStrategy strategy;

	private ContractTopology.Running running;

	private RedisConnectionFactory connectionFactory;

	private ReactiveRedisLockTemplate template;

	private ReactiveRedisLockTemplate otherProcess;

	private RedisLockTemplate blocking;

	private String scope;

	static Stream<Arguments> rows() {
		return Stream
			.of(ContractTopology.STANDALONE, ContractTopology.SENTINEL, ContractTopology.CLUSTER,
					ContractTopology.REDIS_6_2, ContractTopology.VALKEY_8_0)
			.filter(ContractTopology::isSelected)
			.flatMap((topology) -> topology.strategies().stream().map((strategy) -> Arguments.of(topology, strategy)));
	}

	@BeforeParameterizedClassInvocation
	void startRedisAndTemplates(ContractTopology topology, WaitStrategy strategy) {
		this.running = topology.start();
		this.connectionFactory = this.running.redis().connectionFactory();
		LockDefaults defaults = LockDefaults.STANDARD.withWaitStrategy(strategy)
			.withPollInterval(Duration.ofMillis(20))
			.withWaitTime(Duration.ofSeconds(5));
		this.template = reactive(defaults);
		this.otherProcess = reactive(defaults);
		this.blocking = RedisLockTemplate.builder(this.connectionFactory)
			.defaults(defaults)
			.configureKeyspaceEvents(true)
			.build();
	}

	private ReactiveRedisLockTemplate reactive(LockDefaults defaults) {
		return ReactiveRedisLockTemplate.builder((ReactiveRedisConnectionFactory) this.connectionFactory)
			.defaults(defaults)
			.configureKeyspaceEvents(true)
			.build();
	}

	@AfterParameterizedClassInvocation
	void stopTemplatesAndRedis() throws Exception {
		ContractTopology.stop(this.running, this.connectionFactory, this.template, this.otherProcess, this.blocking);
	}

	@BeforeEach
	void pickScope(TestInfo info) {
		this.scope = "r" + this.strategy.name().charAt(0) + "-" + info.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void noLockLeftBehind() {
		// Every test releases what it takes, or lets it expire within its own run.
		await().atMost(Duration.ofSeconds(3))
			.untilAsserted(() -> assertThat(lockKeys()).as("locks left behind").isEmpty());
	}

	private LockRequest.Builder request(String key) {
		return LockRequest.builder(this.scope).key(key);
	}

	@Test
	void shouldExcludeConcurrentSubscribersAndHandOutIncreasingTokens() {
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
		LockRequest lock = request("x").waitTime(Duration.ofSeconds(20)).build();
		Flux.range(0, 40)
			.flatMap((i) -> ((i % 2 == 0) ? this.template : this.otherProcess).locked(lock,
					ReactiveLockContext.current().flatMap((context) -> {
						most.accumulateAndGet(inside.incrementAndGet(), Math::max);
						tokens.add(context.fencingToken());
						// The section ends before its completion reaches the release.
						return Mono.delay(Duration.ofMillis(2)).doOnTerminate(inside::decrementAndGet);
					})))
			.blockLast(BLOCK);
		assertThat(most.get()).as("holders at once").isEqualTo(1);
		assertThat(tokens).hasSize(40).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void shouldExcludeBlockingCallersBothWays() {
		try (LockHandle held = this.blocking.acquire(request("b").build())) {
			assertThat(this.template.tryAcquire(request("b").waitTime(Duration.ZERO).build()).blockOptional(BLOCK))
				.isEmpty();
		}
		ReactiveLockHandle reactive = this.template.acquire(request("b").build()).block(BLOCK);
		assertThat(this.blocking.tryAcquire(request("b").waitTime(Duration.ZERO).build())).isEmpty();
		reactive.release().block(BLOCK);
	}

	@Test
	void shouldWakeAWaiterPromptlyWhenTheLockIsReleased() {
		ReactiveLockHandle held = this.template.acquire(request("w").lease(Duration.ofSeconds(10)).build())
			.block(BLOCK);
		long[] released = new long[1];
		Mono<ReactiveLockHandle> waiter = this.otherProcess
			.acquire(request("w").waitTime(Duration.ofSeconds(9)).build())
			.cache();
		waiter.subscribe();
		Mono.delay(Duration.ofMillis(200)).then(Mono.defer(() -> {
			released[0] = System.nanoTime();
			return held.release();
		})).block(BLOCK);
		ReactiveLockHandle next = waiter.block(BLOCK);
		// Well before the 10 s lease would have ended.
		assertThat(Duration.ofNanos(System.nanoTime() - released[0])).isLessThan(Duration.ofSeconds(2));
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		next.release().block(BLOCK);
	}

	@Test
	void shouldNoticeAnAbandonedLockWhenItsLeaseEnds() {
		// Never released, as if its process had died.
		ReactiveLockHandle abandoned = this.template.acquire(request("d").lease(Duration.ofMillis(800)).build())
			.block(BLOCK);
		long acquiredAt = System.nanoTime();
		ReactiveLockHandle next = this.otherProcess.acquire(request("d").waitTime(Duration.ofSeconds(5)).build())
			.block(BLOCK);
		assertThat(Duration.ofNanos(System.nanoTime() - acquiredAt)).isGreaterThanOrEqualTo(Duration.ofMillis(750))
			.isLessThan(Duration.ofMillis(2500));
		// The abandoned hold's release is refused, and leaves the next holder alone.
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(() -> abandoned.release().block(BLOCK));
		assertThat(this.blocking.isLocked(this.scope, "d")).isTrue();
		next.release().block(BLOCK);
	}

	@Test
	void shouldTimeOutNamingTheLock() {
		ReactiveLockHandle held = this.template.acquire(request("t").build()).block(BLOCK);
		assertThatExceptionOfType(LockTimeoutException.class)
			.isThrownBy(
					() -> this.otherProcess.acquire(request("t").waitTime(Duration.ofMillis(300)).build()).block(BLOCK))
			.withMessageContaining(this.scope + ":t");
		held.release().block(BLOCK);
	}

	@Test
	void shouldExtendTheLease() {
		ReactiveLockHandle held = this.template.acquire(request("e").lease(Duration.ofMillis(500)).build())
			.block(BLOCK);
		held.extend(Duration.ofSeconds(5)).block(BLOCK);
		Mono.delay(Duration.ofMillis(800)).block(BLOCK);
		assertThat(this.blocking.isLocked(this.scope, "e")).as("still held past the first lease").isTrue();
		held.release().block(BLOCK);
	}

	@Test
	void shouldReleaseWhenTheSubscriberCancels() {
		Disposable work = this.template.locked(request("c").lease(Duration.ofSeconds(30)).build(), Mono.never())
			.subscribe();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.blocking.isLocked(this.scope, "c"));
		work.dispose();
		// Free long before the 30 s lease.
		await().atMost(Duration.ofSeconds(3)).until(() -> !this.blocking.isLocked(this.scope, "c"));
	}

	@Test
	void shouldShareAReadLockAmongReadersAndWakeTheWriterWhenTheLastLeaves() {
		LockRequest read = request("rw").mode(LockMode.READ).lease(Duration.ofSeconds(10)).build();
		ReactiveLockHandle first = this.template.acquire(read).block(BLOCK);
		ReactiveLockHandle second = this.otherProcess.acquire(read).block(BLOCK);
		assertThat(first.isHeld().block(BLOCK)).isTrue();
		LockRequest write = request("rw").mode(LockMode.WRITE).waitTime(Duration.ZERO).build();
		assertThat(this.template.tryAcquire(write).blockOptional(BLOCK)).as("a writer while readers read").isEmpty();
		assertThat(this.blocking.tryAcquire(write)).isEmpty();
		Mono<ReactiveLockHandle> writer = this.otherProcess
			.acquire(request("rw").mode(LockMode.WRITE).waitTime(Duration.ofSeconds(8)).build())
			.cache();
		writer.subscribe();
		Mono.delay(Duration.ofMillis(200)).then(first.release()).block(BLOCK);
		assertThat(this.template.tryAcquire(read.toBuilder().waitTime(Duration.ZERO).build()).blockOptional(BLOCK))
			.as("a new reader while a writer waits")
			.isEmpty();
		long released = System.nanoTime();
		second.release().block(BLOCK);
		ReactiveLockHandle written = writer.block(BLOCK);
		// Well before the readers' 10 s leases would have ended.
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
		assertThat(written.fencingToken()).isGreaterThan(Math.max(first.fencingToken(), second.fencingToken()));
		assertThat(this.template.tryAcquire(read.toBuilder().waitTime(Duration.ZERO).build()).blockOptional(BLOCK))
			.isEmpty();
		written.release().block(BLOCK);
	}

	@Test
	void shouldHandOutNoMorePermitsThanThereAreAndWakeAWaiterWhenOneIsGivenBack() {
		LockRequest permit = request("p").permits(2).lease(Duration.ofSeconds(10)).build();
		ReactiveLockHandle one = this.template.acquire(permit).block(BLOCK);
		ReactiveLockHandle two = this.otherProcess.acquire(permit).block(BLOCK);
		assertThat(this.template.tryAcquire(permit.toBuilder().waitTime(Duration.ZERO).build()).blockOptional(BLOCK))
			.isEmpty();
		assertThat(this.blocking.tryAcquire(permit.toBuilder().waitTime(Duration.ZERO).build())).isEmpty();
		assertThat(two.isHeld().block(BLOCK)).isTrue();
		Mono<ReactiveLockHandle> waiter = this.template
			.acquire(permit.toBuilder().waitTime(Duration.ofSeconds(8)).build())
			.cache();
		waiter.subscribe();
		Mono.delay(Duration.ofMillis(200)).then(one.release()).block(BLOCK);
		long released = System.nanoTime();
		ReactiveLockHandle third = waiter.block(BLOCK);
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
		assertThat(third.fencingToken()).isGreaterThan(two.fencingToken());
		assertThat(one.isHeld().block(BLOCK)).isFalse();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		two.release().then(third.release()).block(BLOCK);
		Flux.range(0, 12)
			.flatMap((i) -> ((i % 2 == 0) ? this.template : this.otherProcess)
				.locked(permit.toBuilder().waitTime(Duration.ofSeconds(20)).build(), Mono.defer(() -> {
					most.accumulateAndGet(inside.incrementAndGet(), Math::max);
					return Mono.delay(Duration.ofMillis(5)).doOnTerminate(inside::decrementAndGet);
				})))
			.blockLast(BLOCK);
		assertThat(most.get()).as("holders at once").isBetween(1, 2);
	}

	private List<String> lockKeys() {
		List<String> keys = new ArrayList<>();
		for (String key : this.running.redis().keys("lock:{" + this.scope + "*")) {
			if (!key.endsWith(":fence")) {
				keys.add(key);
			}
		}
		return keys;
	}

}
