package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.KeyspaceNotificationsException;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The reactive template waiting by keyspace notifications, as the blocking one does:
 * woken by the lock key's {@code del} and {@code expired} events, refused with the
 * blocking template's error when the server publishes none, and in one line with blocking
 * keyspace waiters.
 */
class ReactiveKeyspaceWaitTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	private static final Duration LEASE = Duration.ofSeconds(30);

	// Well before the lease: a waiter woken only when the lease ends would take 30 s.
	private static final Duration WELL_BEFORE_LEASE = Duration.ofSeconds(5);

	private static final LockDefaults KEYSPACE = LockDefaults.STANDARD.withWaitStrategy(WaitStrategy.KEYSPACE_EVENTS)
		.withWaitTime(Duration.ofSeconds(60));

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private LettuceConnectionFactory factory;

	private ReactiveRedisLockTemplate template;

	private StringRedisTemplate raw;

	@BeforeEach
	void connect() {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "Kgx");
		this.factory = RedisConnections.standalone(redis.server());
		this.template = ReactiveRedisLockTemplate.builder(this.factory).defaults(KEYSPACE).build();
		this.raw = new StringRedisTemplate(this.factory);
	}

	@AfterEach
	void disconnect() {
		this.executor.shutdownNow();
		this.template.close();
		this.factory.destroy();
	}

	private static LockRequest.Builder lock(String key, boolean fair) {
		return LockRequest.builder("rks").key(key).fair(fair);
	}

	private static List<String> keyspaceSubscriptions() {
		List<?> channels = (List<?>) redis.server().command("PUBSUB", "CHANNELS", "__keyspace@*");
		return (channels != null) ? channels.stream().map(String::valueOf).toList() : List.of();
	}

	@ParameterizedTest(name = "fair={0}")
	@ValueSource(booleans = { false, true })
	void shouldWakeAWaiterByTheHoldersReleaseLongBeforeTheLease(boolean fair) {
		String key = "release-" + fair;
		ReactiveLockHandle holder = this.template.acquire(lock(key, fair).lease(LEASE).autoRenew(false).build())
			.block(BLOCK);
		Mono<ReactiveLockHandle> waiter = this.template.acquire(lock(key, fair).build()).cache();
		waiter.subscribe();
		await().untilAsserted(() -> assertThat(keyspaceSubscriptions())
			.contains("__keyspace@0__:" + this.template.lockKey(lock(key, fair).build())));
		holder.release().block(BLOCK);
		ReactiveLockHandle next = waiter.block(BLOCK);
		assertThat(next.waitedFor()).isLessThan(WELL_BEFORE_LEASE);
		assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
		next.release().block(BLOCK);
	}

	@Test
	void shouldWakeAMultiLockWaiterByTheHoldersRelease() {
		ReactiveLockHandle holder = this.template.acquire(lock("m2", false).lease(LEASE).autoRenew(false).build())
			.block(BLOCK);
		Mono<ReactiveLockHandle> waiter = this.template
			.acquireAll(List.of(lock("m1", false).build(), lock("m2", false).build()))
			.cache();
		waiter.subscribe();
		String channel = "__keyspace@0__:" + this.template.lockKey(lock("m2", false).build());
		await().untilAsserted(() -> assertThat(keyspaceSubscriptions()).contains(channel));
		long start = System.nanoTime();
		holder.release().block(BLOCK);
		ReactiveLockHandle both = waiter.block(BLOCK);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WELL_BEFORE_LEASE);
		both.release().block(BLOCK);
	}

	@Test
	void shouldWakeAWriterWhenTheLastReaderLeaves() {
		ReactiveLockHandle reader = this.template
			.acquire(lock("rw", false).mode(LockMode.READ).lease(LEASE).autoRenew(false).build())
			.block(BLOCK);
		Mono<ReactiveLockHandle> writer = this.template.acquire(lock("rw", false).build()).cache();
		writer.subscribe();
		String readers = "__keyspace@0__:" + LockKeys.readers(this.template.lockKey(lock("rw", false).build()));
		await().untilAsserted(() -> assertThat(keyspaceSubscriptions()).contains(readers));
		long start = System.nanoTime();
		reader.release().block(BLOCK);
		ReactiveLockHandle written = writer.block(BLOCK);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WELL_BEFORE_LEASE);
		written.release().block(BLOCK);
	}

	@Test
	void shouldWakeAWaiterByADeletionThatNoReleaseMessageAnnounces() {
		// A key deleted by anything but a release script: only its keyspace event tells.
		LockRequest request = lock("deleted", false).lease(LEASE).autoRenew(false).build();
		ReactiveLockHandle holder = this.template.acquire(request).block(BLOCK);
		Mono<ReactiveLockHandle> waiter = this.template.acquire(lock("deleted", false).build()).cache();
		waiter.subscribe();
		String channel = "__keyspace@0__:" + this.template.lockKey(request);
		await().untilAsserted(() -> assertThat(keyspaceSubscriptions()).contains(channel));
		long start = System.nanoTime();
		this.raw.delete(this.template.lockKey(request));
		ReactiveLockHandle next = waiter.block(BLOCK);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WELL_BEFORE_LEASE);
		next.release().block(BLOCK);
		holder.release().onErrorResume((ex) -> Mono.empty()).block(BLOCK);
	}

	@Test
	void shouldWakeAWaiterWhenAHolderThatNeverReleasesLosesItsLease() {
		LockRequest request = lock("expired", false).lease(Duration.ofMillis(1500)).autoRenew(false).build();
		ReactiveLockHandle holder = this.template.acquire(request).block(BLOCK);
		long start = System.nanoTime();
		ReactiveLockHandle next = this.template.acquire(lock("expired", false).build()).block(BLOCK);
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		assertThat(waited).isGreaterThan(Duration.ofMillis(1000)).isLessThan(WELL_BEFORE_LEASE);
		assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
		next.release().block(BLOCK);
	}

	@Test
	void shouldFailWithTheBlockingTemplatesErrorWhenNotificationsAreOff() {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "");
		LockRequest request = lock("off", false).build();
		// Subscribed on a Reactor thread, where a blocking check would be refused.
		KeyspaceNotificationsException reactive = catchThrowableOfType(KeyspaceNotificationsException.class,
				() -> this.template.acquire(request).subscribeOn(Schedulers.parallel()).block(BLOCK));
		assertThat(reactive).isNotNull();
		assertThat(reactive.getMissingFlags()).isEqualTo("Kgx");
		assertThatExceptionOfType(KeyspaceNotificationsException.class)
			.isThrownBy(() -> RedisLockTemplate.builder(this.factory).defaults(KEYSPACE).build())
			.withMessage(reactive.getMessage());
		assertThat(this.raw.hasKey(this.template.lockKey(request))).isFalse();
	}

	@Test
	void shouldTurnNotificationsOnWhenAllowedToConfigureThem() {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "");
		try (ReactiveRedisLockTemplate configuring = ReactiveRedisLockTemplate.builder(this.factory)
			.defaults(KEYSPACE)
			.configureKeyspaceEvents(true)
			.build()) {
			ReactiveLockHandle held = configuring.acquire(lock("configured", false).build())
				.subscribeOn(Schedulers.parallel())
				.block(BLOCK);
			held.release().block(BLOCK);
		}
		List<?> reply = (List<?>) redis.server().command("CONFIG", "GET", "notify-keyspace-events");
		String flags = String.valueOf(reply.get(1));
		assertThat(flags).contains("K").contains("g").contains("x");
	}

	@Test
	void shouldShareALockWithABlockingKeyspaceWaiter() throws Exception {
		try (RedisLockTemplate blocking = RedisLockTemplate.builder(this.factory).defaults(KEYSPACE).build()) {
			LockRequest request = lock("mixed", false).lease(LEASE).autoRenew(false).build();
			LockHandle holder = blocking.acquire(request);
			AtomicInteger inside = new AtomicInteger();
			List<Integer> most = new CopyOnWriteArrayList<>();
			List<Long> tokens = new CopyOnWriteArrayList<>();
			Mono<Long> reactiveWaiter = this.template.execute(request, (context) -> {
				most.add(inside.incrementAndGet());
				tokens.add(context.fencingToken());
				return Mono.delay(Duration.ofMillis(200)).doOnNext((tick) -> inside.decrementAndGet());
			}).single().cache();
			reactiveWaiter.subscribe();
			Future<?> blockingWaiter = this.executor.submit(() -> {
				try (LockHandle handle = blocking.acquire(request)) {
					most.add(inside.incrementAndGet());
					tokens.add(handle.fencingToken());
					Thread.sleep(200);
					inside.decrementAndGet();
				}
				return null;
			});
			await().until(() -> this.template.waitingSubscriptions() == 1);
			long start = System.nanoTime();
			holder.close();
			reactiveWaiter.block(BLOCK);
			blockingWaiter.get(30, TimeUnit.SECONDS);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WELL_BEFORE_LEASE);
			assertThat(most).containsOnly(1).hasSize(2);
			assertThat(tokens).hasSize(2).doesNotHaveDuplicates().allMatch((token) -> token > holder.fencingToken());
		}
	}

}
