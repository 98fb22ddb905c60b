package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The behaviour every wait strategy and every topology must show, against a real
 * redis-server. Subclasses choose the strategy and where Redis runs.
 * <p>
 * Two templates stand in for two processes: each has its own secret instance id, so their
 * threads are different owners, exactly as in separate JVMs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LockContractTests {

	private RedisConnectionFactory connectionFactory;

	protected RedisLockTemplate template;

	protected RedisLockTemplate otherProcess;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private String scope;

	/**
	 * Return the wait strategy under test.
	 */
	protected abstract WaitStrategy strategy();

	/**
	 * Return the Redis the suite runs against, started by the subclass.
	 */
	protected abstract TestRedis redis();

	protected RedisLockTemplate.Builder configure(RedisLockTemplate.Builder builder) {
		return builder.configureKeyspaceEvents(true).subscriptionLinger(Duration.ofMillis(200));
	}

	@BeforeAll
	void startTemplates() {
		this.connectionFactory = redis().connectionFactory();
		LockDefaults defaults = LockDefaults.STANDARD.withWaitStrategy(strategy())
			.withPollInterval(Duration.ofMillis(20))
			.withWaitTime(Duration.ofSeconds(5));
		this.template = configure(RedisLockTemplate.builder(this.connectionFactory).defaults(defaults)).build();
		this.otherProcess = configure(RedisLockTemplate.builder(this.connectionFactory).defaults(defaults)).build();
	}

	@AfterAll
	void stopTemplates() throws Exception {
		this.executor.shutdownNow();
		this.template.close();
		this.otherProcess.close();
		if (this.connectionFactory instanceof org.springframework.beans.factory.DisposableBean disposable) {
			disposable.destroy();
		}
	}

	@BeforeEach
	void pickScope(TestInfo info) {
		this.scope = strategy().name().charAt(0) + "-" + info.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void noLockLeftBehind() {
		// Every test releases what it takes, or lets it expire within its own run.
		await().atMost(Duration.ofSeconds(3))
			.untilAsserted(() -> assertThat(lockKeys()).as("lock keys left in Redis").isEmpty());
	}

	private LockRequest.Builder request(String key) {
		return LockRequest.builder(this.scope).key(key);
	}

	@Test
	void shouldExcludeOtherOwners() throws Exception {
		try (LockHandle held = this.template.acquire(request("a").build())) {
			assertThat(this.template.isLocked(this.scope, "a")).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("a").waitTime(Duration.ZERO).build())).isEmpty();
			assertThat(onOtherThread(() -> this.template.tryAcquire(request("a").waitTime(Duration.ZERO).build())))
				.as("another thread of the same process is another owner")
				.isEmpty();
			assertThat(this.otherProcess.tryAcquire(request("b").waitTime(Duration.ZERO).build()))
				.hasValueSatisfying(LockHandle::close);
		}
		assertThat(this.template.isLocked(this.scope, "a")).isFalse();
	}

	@Test
	void shouldBeReentrantForTheSameThread() throws Exception {
		LockHandle outer = this.template.acquire(request("r").build());
		LockHandle inner = this.template.acquire(request("r").build());
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		assertThat(this.template.isHeldByCurrentThread(this.scope, "r")).isTrue();
		inner.close();
		assertThat(this.template.isLocked(this.scope, "r")).as("still held by the outer hold").isTrue();
		assertThat(onOtherThread(() -> this.template.tryAcquire(request("r").waitTime(Duration.ZERO).build())))
			.isEmpty();
		outer.close();
		assertThat(this.template.isLocked(this.scope, "r")).isFalse();
	}

	@Test
	void shouldFailFastOnSelfDeadlockWhenNotReentrant() {
		try (LockHandle held = this.template.acquire(request("s").build())) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockSelfDeadlockException.class)
				.isThrownBy(() -> this.template.acquire(request("s").reentrant(false).build()))
				.withMessageContaining(this.scope + ":s");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(held.isHeld()).isTrue();
		}
	}

	@Test
	void shouldRefuseReleaseAndExtendByAStranger() {
		try (LockHandle held = this.template.acquire(request("x").build())) {
			LockSpec spec = specOf("x");
			LockCommands stranger = new LockCommands(
					new org.springframework.data.redis.core.StringRedisTemplate(this.connectionFactory), 60_000, true);
			// A stranger knows the key and even the token, but not the secret owner id.
			assertThat(stranger.release(spec, "guessed-owner:1", held.fencingToken())).isEqualTo(-2);
			assertThat(stranger.extend(spec, "guessed-owner:1", held.fencingToken(), 60_000)).isEqualTo(-2);
			assertThat(held.isHeld()).isTrue();
			assertThat(this.template.isLocked(this.scope, "x")).isTrue();
		}
	}

	@Test
	void shouldExpireAndReportTheLostLeaseOnRelease() throws Exception {
		LockHandle held = this.template.acquire(request("e").lease(Duration.ofMillis(300)).build());
		Optional<LockHandle> next = this.otherProcess.tryAcquire(request("e").waitTime(Duration.ofSeconds(3)).build());
		assertThat(next).as("taken over once the lease ended").isPresent();
		assertThat(held.isHeld()).isFalse();
		assertThat(held.remainingLease()).isEqualTo(Duration.ZERO);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close)
			.withMessageContaining(this.scope + ":e")
			.withMessageContaining("overlapped");
		assertThat(next.get().isHeld()).as("the stale release did not free the new holder's lock").isTrue();
		next.get().close();
	}

	@Test
	void shouldExtendTheLease() throws Exception {
		try (LockHandle held = this.template.acquire(request("x").lease(Duration.ofMillis(300)).build())) {
			held.extend(Duration.ofSeconds(5));
			assertThat(held.remainingLease()).isGreaterThan(Duration.ofSeconds(4));
			Thread.sleep(500);
			assertThat(held.isHeld()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("x").waitTime(Duration.ZERO).build())).isEmpty();
		}
	}

	@Test
	void shouldNotExtendALostLease() throws Exception {
		LockHandle held = this.template.acquire(request("x").lease(Duration.ofMillis(100)).build());
		Thread.sleep(250);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(() -> held.extend(Duration.ofSeconds(5)));
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
	}

	@Test
	void shouldHandOutStrictlyIncreasingFencingTokens() throws Exception {
		long previous = 0;
		for (int i = 0; i < 50; i++) {
			RedisLockTemplate owner = (i % 2 == 0) ? this.template : this.otherProcess;
			try (LockHandle held = owner.acquire(request("f").build())) {
				assertThat(held.fencingToken()).isGreaterThan(previous);
				previous = held.fencingToken();
			}
		}
	}

	@Test
	void shouldTimeOutNamingTheLockTheWaitAndTheHoldersLease() throws Exception {
		try (LockHandle held = this.template.acquire(request("t").lease(Duration.ofSeconds(20)).build())) {
			long start = System.nanoTime();
			LockTimeoutException timeout = onOtherThread(() -> {
				try {
					this.otherProcess.acquire(request("t").waitTime(Duration.ofMillis(400)).build());
					return null;
				}
				catch (LockTimeoutException ex) {
					return ex;
				}
			});
			assertThat(timeout).isNotNull();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			assertThat(timeout.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			assertThat(timeout.getHolderRemainingLease()).isNotNull()
				.isGreaterThan(Duration.ofSeconds(15))
				.isLessThanOrEqualTo(Duration.ofSeconds(20));
			assertThat(timeout.getLockName()).isEqualTo(LockName.of(this.scope, "t"));
			assertThat(timeout).hasMessageContaining(this.scope + ":t").hasMessageContaining("lease");
			assertThat(held.isHeld()).isTrue();
		}
	}

	@Test
	void shouldTakeOverAHoldWhoseReplyWasLostInsteadOfCountingIt() {
		// A hold this thread has no handle on, as after an acquire whose reply never came.
		RedisLockHandle ghost = (RedisLockHandle) this.template.acquire(request("ghost").build());
		this.template.holds().forget(ghost);
		try (LockHandle held = this.template.acquire(request("ghost").build())) {
			assertThat(held.fencingToken()).isEqualTo(ghost.fencingToken());
		}
		assertThat(this.template.isLocked(this.scope, "ghost")).as("one release frees it").isFalse();
	}

	@Test
	void shouldTryOnceWhenTheWaitIsZero() throws Exception {
		try (LockHandle held = this.template.acquire(request("z").build())) {
			long before = evalCalls();
			assertThat(this.otherProcess.tryAcquire(request("z").waitTime(Duration.ZERO).build())).isEmpty();
			assertThat(evalCalls() - before).isEqualTo(1);
		}
	}

	@Test
	void shouldRestartAProgressAwareTimeoutWhileTheLockChangesHands() throws Exception {
		// A holder that hands the lock to a new holder every 150 ms without ever leaving it
		// free: the token changes and waiters are told, as after a real release and re-acquire.
		String key = this.template.lockKey(LockName.of(this.scope, "p"));
		redis().command("HSET", key, "owner", "someone-else", "holds", "1", "token", "1");
		redis().command("PEXPIRE", key, "10000");
		Future<?> handoffs = this.executor.submit(() -> {
			for (int token = 2; token <= 10; token++) {
				sleep(150);
				redis().command("HSET", key, "token", Integer.toString(token));
				redis().command("PUBLISH", LockKeys.releaseChannel(key), Integer.toString(token));
				if (strategy() == WaitStrategy.KEYSPACE_EVENTS) {
					// Keyspace waiters only hear deletions; make the handoff look like one.
					redis().command("PUBLISH", "__keyspace@0__:" + key, "del");
				}
			}
			return null;
		});
		long start = System.nanoTime();
		assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> this.template
			.acquire(request("p").waitTime(Duration.ofMillis(400)).progressAwareTimeout(true).build()));
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		handoffs.get(5, TimeUnit.SECONDS);
		if (strategy() == WaitStrategy.POLLING) {
			// Polling sees every handoff too, just later.
			assertThat(waited).isGreaterThan(Duration.ofMillis(1200));
		}
		else {
			// Nine handoffs over 1350 ms kept it waiting; then 400 ms without progress.
			assertThat(waited).isGreaterThan(Duration.ofMillis(1500));
		}
		assertThat(waited).isLessThan(Duration.ofMillis(3500));
		long plainStart = System.nanoTime();
		assertThatExceptionOfType(LockTimeoutException.class)
			.isThrownBy(() -> this.template.acquire(request("p").waitTime(Duration.ofMillis(400)).build()));
		assertThat(Duration.ofNanos(System.nanoTime() - plainStart)).isLessThan(Duration.ofMillis(1200));
		redis().command("DEL", key);
	}

	@Test
	void shouldHonourInterrupts() throws Exception {
		try (LockHandle held = this.template.acquire(request("i").build())) {
			AtomicReference<Throwable> failure = new AtomicReference<>();
			AtomicReference<Boolean> interruptFlag = new AtomicReference<>();
			CountDownLatch done = new CountDownLatch(1);
			Thread waiter = new Thread(() -> {
				try {
					this.otherProcess.acquire(request("i").waitIndefinitely().build());
				}
				catch (Throwable ex) {
					failure.set(ex);
					interruptFlag.set(Thread.currentThread().isInterrupted());
				}
				finally {
					done.countDown();
				}
			});
			waiter.start();
			Thread.sleep(300);
			waiter.interrupt();
			assertThat(done.await(3, TimeUnit.SECONDS)).as("woke on interrupt").isTrue();
			assertThat(failure.get()).isInstanceOf(LockInterruptedException.class)
				.hasMessageContaining(this.scope + ":i");
			assertThat(interruptFlag.get()).as("interrupt status restored").isTrue();
		}
	}

	@Test
	void shouldWakeAWaiterPromptlyWhenTheLockIsReleased() throws Exception {
		LockHandle held = this.template.acquire(request("w").lease(Duration.ofSeconds(10)).build());
		Future<LockContextSnapshot> waiter = this.executor.submit(() -> this.otherProcess
			.execute(request("w").waitTime(Duration.ofSeconds(9)).build(), LockContextSnapshot::of));
		Thread.sleep(200);
		long released = System.nanoTime();
		held.close();
		LockContextSnapshot context = waiter.get(9, TimeUnit.SECONDS);
		Duration afterRelease = Duration.ofNanos(System.nanoTime() - released);
		assertThat(context.waited()).isTrue();
		assertThat(context.token()).isGreaterThan(held.fencingToken());
		// Well before the 10 s lease would have ended.
		assertThat(afterRelease).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void shouldReserveTheLockForAWaiterOfAnotherProcess() throws Exception {
		LockHandle held = this.template.acquire(request("h").lease(Duration.ofSeconds(30)).build());
		CountDownLatch asserted = new CountDownLatch(1);
		Future<LockContextSnapshot> waiter = this.executor.submit(() -> this.otherProcess.execute(
				request("h").lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(9)).build(), (context) -> {
					LockContextSnapshot snapshot = LockContextSnapshot.of(context);
					try {
						asserted.await(9, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					return snapshot;
				}));
		String requestsKey = specOf("h").requestsKey();
		await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redisOps().hasKey(requestsKey)));
		held.close();
		// Reserved for the waiter inside the release: nobody can barge in, the releaser included.
		assertThat(this.template.tryAcquire(request("h").waitTime(Duration.ZERO).build())).isEmpty();
		asserted.countDown();
		LockContextSnapshot context = waiter.get(9, TimeUnit.SECONDS);
		assertThat(context.waited()).isTrue();
		assertThat(context.token()).isGreaterThan(held.fencingToken());
		// Its own attempt took the lock, with the lease it asked for counted from that attempt.
		assertThat(context.remainingLease()).isGreaterThan(Duration.ofSeconds(20));
		if (strategy() != WaitStrategy.POLLING) {
			assertThat(context.attempts()).as("the first try, the one that filed the request, and the one that took it")
				.isEqualTo(3);
		}
		assertThat(redisOps().hasKey(requestsKey)).isFalse();
	}

	@Test
	void shouldCostOnlyTheClaimWhenTheWaiterTheLockIsReservedForIsGone() throws Exception {
		LockHandle held = this.template.acquire(request("g").lease(Duration.ofSeconds(30)).build());
		LockSpec spec = specOf("g");
		// A request filed by a waiter whose process then died: it will never take the lock.
		redisOps().opsForZSet().add(spec.requestsKey(), "2000:dead.1", System.currentTimeMillis());
		// Filed as the engine files a request: the hold is marked as one that requests wait for.
		redisOps().opsForHash().put(spec.lockKey(), "queued", "1");
		held.close();
		assertThat(redisOps().opsForHash().get(spec.lockKey(), "owner")).as("reserved, not held").isEqualTo("");
		assertThat(redisOps().opsForHash().get(spec.lockKey(), "reserved")).isEqualTo("2000:dead.1");
		assertThat(redisOps().getExpire(spec.lockKey(), TimeUnit.MILLISECONDS))
			.isBetween(1L, HandOffRequest.CLAIM_MILLIS);
		long start = System.nanoTime();
		try (LockHandle next = this.otherProcess.acquire(request("g").waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(3500));
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
	}

	@Test
	void shouldWakeAWaiterWhenTheLockIsReservedForAWaiterThatIsGone() throws Exception {
		LockHandle held = this.template.acquire(request("k").lease(Duration.ofSeconds(30)).build());
		LockSpec spec = specOf("k");
		Future<LockHandle> waiter = this.executor
			.submit(() -> this.otherProcess.acquire(request("k").waitTime(Duration.ofSeconds(8)).build()));
		await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redisOps().hasKey(spec.requestsKey())));
		// Ahead of the live waiter: a request from a process that died while waiting.
		redisOps().opsForZSet().add(spec.requestsKey(), "2000:dead.2", 0);
		long released = System.nanoTime();
		held.close();
		// The live waiter sleeps until the holder's 30 s lease or its next filing 15 s away, unless
		// the reservation for the dead process wakes it to wait for that claim instead.
		try (LockHandle next = waiter.get(8, TimeUnit.SECONDS)) {
			assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofMillis(3500));
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
	}

	@Test
	void shouldWithdrawTheRequestWhenTheWaitEnds() throws Exception {
		try (LockHandle held = this.template.acquire(request("t").build())) {
			assertThat(this.otherProcess.tryAcquire(request("t").waitTime(Duration.ofMillis(300)).build())).isEmpty();
			assertThat(redisOps().hasKey(specOf("t").requestsKey())).isFalse();
		}
		assertThat(this.template.isLocked(this.scope, "t")).as("reserved for nobody").isFalse();
	}

	@Test
	void shouldPassOnAReservationWhoseWaiterGaveUpMeanwhile() {
		LockSpec spec = specOf("u");
		LockCommands commands = new LockCommands(redisOps(), 60_000, true);
		HandOffRequest request = HandOffRequest.of(0);
		LockHandle held = this.template.acquire(request("u").build());
		assertThat(commands.acquire(spec, "gave-up:1", 5000, false, false, request).acquired()).isFalse();
		held.close();
		assertThat(this.template.isLocked(this.scope, "u")).as("reserved").isTrue();
		commands.withdraw(spec, request);
		assertThat(this.template.isLocked(this.scope, "u")).isFalse();
		assertThat(redisOps().hasKey(spec.requestsKey())).isFalse();
	}

	@Test
	void shouldNoticeAnAbandonedLockWhenItsLeaseEndsWithoutPolling() throws Exception {
		// Never released, as if its process had died.
		LockHandle abandoned = this.template.acquire(request("d").lease(Duration.ofMillis(800)).build());
		long acquiredAt = System.nanoTime();
		long before = evalCalls();
		try (LockHandle next = this.otherProcess.acquire(request("d").waitTime(Duration.ofSeconds(5)).build())) {
			Duration after = Duration.ofNanos(System.nanoTime() - acquiredAt);
			assertThat(after).isGreaterThanOrEqualTo(Duration.ofMillis(750)).isLessThan(Duration.ofMillis(2500));
			assertThat(next.waited()).isTrue();
			if (strategy() != WaitStrategy.POLLING) {
				// First try, try again once subscribed, and the try when the lease ended.
				assertThat(evalCalls() - before).isLessThanOrEqualTo(4);
			}
		}
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(abandoned::close);
	}

	@Test
	void shouldExposeTheLockContextInsideExecute() {
		LockContextSnapshot snapshot = this.template.execute(this.scope, "c", (context) -> {
			assertThat(LockContext.current()).isSameAs(context);
			String nested = this.template.execute(this.scope, "c2",
					(inner) -> LockContext.current().name().key());
			assertThat(nested).isEqualTo("c2");
			assertThat(LockContext.current()).as("outer context back after the nested one").isSameAs(context);
			return LockContextSnapshot.of(context);
		});
		assertThat(snapshot.name()).isEqualTo(LockName.of(this.scope, "c"));
		assertThat(snapshot.waited()).isFalse();
		assertThat(snapshot.attempts()).isEqualTo(1);
		assertThat(snapshot.token()).isPositive();
		assertThat(snapshot.remainingLease()).isGreaterThan(Duration.ofSeconds(25));
		assertThat(snapshot.held()).isTrue();
		assertThat(LockContext.find()).isEmpty();
	}

	@Test
	void shouldUseAtMostTwoCommandsPerUncontendedAcquireAndRelease() {
		long before = evalCalls();
		Map<String, Long> statsBefore = redis().commandCalls();
		for (int i = 0; i < 100; i++) {
			try (LockHandle held = this.template.acquire(request("u" + i).build())) {
				assertThat(held.waited()).isFalse();
			}
		}
		assertThat(evalCalls() - before).isEqualTo(200);
		Map<String, Long> statsAfter = redis().commandCalls();
		assertThat(statsAfter.getOrDefault("subscribe", 0L)).isEqualTo(statsBefore.getOrDefault("subscribe", 0L));
	}

	@Test
	void shouldKeepSectionsFromOverlappingUnderConcurrency() throws Exception {
		int threads = 8;
		int perThread = 40;
		List<Section> sections = java.util.Collections.synchronizedList(new ArrayList<>());
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			RedisLockTemplate owner = (t % 2 == 0) ? this.template : this.otherProcess;
			int thread = t;
			workers.add(this.executor.submit(() -> {
				for (int i = 0; i < perThread; i++) {
					String key = "k" + ((thread + i) % 3);
					owner.executeWithoutResult(request(key).waitTime(Duration.ofSeconds(20)).build(), (context) -> {
						long start = System.nanoTime();
						busy(200_000);
						sections.add(new Section(key, start, System.nanoTime(), context.fencingToken()));
					});
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(sections).hasSize(threads * perThread);
		assertThat(Section.overlaps(sections)).isEmpty();
	}

	@Test
	void shouldLeaveNoSubscriptionBehind() throws Exception {
		LockHandle held = this.template.acquire(request("l").build());
		Future<?> waiter = this.executor
			.submit(() -> this.otherProcess.execute(request("l").build(), (context) -> context.fencingToken()));
		Thread.sleep(200);
		held.close();
		waiter.get(5, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
			assertThat(this.otherProcess.waitQueueCount()).isZero();
			if (strategy() != WaitStrategy.POLLING) {
				assertThat(lockChannelSubscriptions()).isZero();
			}
		});
	}

	@Test
	void shouldTakeAllLocksOrNone() throws Exception {
		LockHandle blocker = this.otherProcess.acquire(request("m2").build());
		assertThatExceptionOfType(LockTimeoutException.class)
			.isThrownBy(() -> this.template.acquireAll(List.of(request("m3").waitTime(Duration.ofMillis(300)).build(),
					request("m1").build(), request("m2").build())))
			.withMessageContaining(this.scope + ":m2");
		assertThat(this.template.isLocked(this.scope, "m1")).as("rolled back").isFalse();
		assertThat(this.template.isLocked(this.scope, "m3")).as("never taken").isFalse();
		blocker.close();
		try (LockHandle all = this.template.acquireAll(
				List.of(request("m3").build(), request("m1").build(), request("m2").build(), request("m1").build()))) {
			assertThat(all.locks()).extracting((lock) -> lock.name().key()).containsExactly("m1", "m2", "m3");
			assertThat(all.isHeld()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("m3").waitTime(Duration.ZERO).build())).isEmpty();
		}
		assertThat(List.of("m1", "m2", "m3")).noneMatch((key) -> this.template.isLocked(this.scope, key));
	}

	@Test
	void shouldNotDeadlockOnOverlappingMultiLocks() throws Exception {
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 2; t++) {
			RedisLockTemplate owner = (t == 0) ? this.template : this.otherProcess;
			List<LockRequest> keys = (t == 0) ? List.of(request("a").build(), request("b").build())
					: List.of(request("b").build(), request("a").build());
			workers.add(this.executor.submit(() -> {
				for (int i = 0; i < 150; i++) {
					owner.executeAll(keys, (context) -> context.fencingToken());
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
	}

	@Test
	void shouldForceReleaseAndWakeWaiters() throws Exception {
		LockHandle held = this.template.acquire(request("fr").lease(Duration.ofSeconds(20)).build());
		Future<Long> waiter = this.executor
			.submit(() -> this.otherProcess.execute(request("fr").build(), LockContext::fencingToken));
		Thread.sleep(200);
		assertThat(this.template.forceRelease(LockName.of(this.scope, "fr"))).isTrue();
		assertThat(waiter.get(3, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
		assertThat(this.template.forceRelease(LockName.of(this.scope, "fr"))).isFalse();
	}

	@Test
	void shouldShareReadLocksAndExcludeWriters() throws Exception {
		LockHandle reader1 = this.template.acquire(request("rw").mode(LockMode.READ).build());
		LockHandle reader2 = this.otherProcess.acquire(request("rw").mode(LockMode.READ).build());
		assertThat(reader1.isHeld()).isTrue();
		assertThat(reader2.isHeld()).isTrue();
		// Writers on another thread: on this one they would be readers asking to upgrade.
		assertThat(onOtherThread(() -> this.otherProcess.tryAcquire(request("rw").waitTime(Duration.ZERO).build())))
			.as("writer")
			.isEmpty();
		reader1.close();
		assertThat(onOtherThread(() -> this.template
			.tryAcquire(request("rw").mode(LockMode.WRITE).waitTime(Duration.ZERO).build())))
			.as("a writer waits for the last reader")
			.isEmpty();
		reader2.close();
		try (LockHandle writer = this.otherProcess.acquire(request("rw").mode(LockMode.WRITE).build())) {
			assertThat(this.template.tryAcquire(request("rw").mode(LockMode.READ).waitTime(Duration.ZERO).build()))
				.as("readers wait for the writer")
				.isEmpty();
			try (LockHandle ownRead = this.otherProcess.acquire(request("rw").mode(LockMode.READ).build())) {
				assertThat(ownRead.isHeld()).as("the writer may also read").isTrue();
			}
		}
	}

	@Test
	void shouldRefuseToUpgradeAReadLock() {
		try (LockHandle reader = this.template.acquire(request("up").mode(LockMode.READ).build())) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockSelfDeadlockException.class)
				.isThrownBy(() -> this.template.acquire(request("up").mode(LockMode.WRITE).build()));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		}
	}

	@Test
	void shouldWakeTheWriterWhenTheLastReaderLeavesAndAllReadersWhenTheWriterLeaves() throws Exception {
		LockHandle reader = this.template.acquire(request("wake").mode(LockMode.READ).lease(Duration.ofSeconds(10)).build());
		Future<LockHandle> writer = this.executor.submit(() -> this.otherProcess.acquire(request("wake")
			.mode(LockMode.WRITE).lease(Duration.ofSeconds(10)).waitTime(Duration.ofSeconds(8)).build()));
		Thread.sleep(200);
		long released = System.nanoTime();
		reader.close();
		LockHandle writing = writer.get(8, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
		List<Future<LockHandle>> readers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RedisLockTemplate owner = (i % 2 == 0) ? this.template : this.otherProcess;
			readers.add(this.executor.submit(
					() -> owner.acquire(request("wake").mode(LockMode.READ).waitTime(Duration.ofSeconds(8)).build())));
		}
		Thread.sleep(200);
		released = System.nanoTime();
		writing.close();
		List<LockHandle> reading = new ArrayList<>();
		for (Future<LockHandle> future : readers) {
			reading.add(future.get(8, TimeUnit.SECONDS));
		}
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
		assertThat(reading).allMatch(LockHandle::isHeld);
		reading.forEach(LockHandle::close);
	}

	@Test
	void shouldNotStarveAWaitingWriter() throws Exception {
		LockHandle reader = this.template.acquire(request("starve").mode(LockMode.READ).build());
		Future<LockHandle> writer = this.executor.submit(() -> this.otherProcess
			.acquire(request("starve").mode(LockMode.WRITE).waitTime(Duration.ofSeconds(8)).build()));
		Thread.sleep(300);
		assertThat(this.otherProcess.tryAcquire(request("starve").mode(LockMode.READ).waitTime(Duration.ZERO).build()))
			.as("a new reader holds back while a writer waits")
			.isEmpty();
		reader.close();
		writer.get(5, TimeUnit.SECONDS).close();
		try (LockHandle after = this.otherProcess.acquire(request("starve").mode(LockMode.READ).build())) {
			assertThat(after.isHeld()).isTrue();
		}
	}

	@Test
	void shouldLetAReadLeaseEndOnItsOwn() throws Exception {
		LockHandle reader = this.template
			.acquire(request("rlease").mode(LockMode.READ).lease(Duration.ofMillis(400)).build());
		try (LockHandle writer = this.otherProcess
			.acquire(request("rlease").mode(LockMode.WRITE).waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(writer.waited()).isTrue();
		}
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(reader::close);
	}

	@Test
	void shouldNeverHandOutMorePermitsThanTheSemaphoreHas() throws Exception {
		java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
		java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			RedisLockTemplate owner = (t % 2 == 0) ? this.template : this.otherProcess;
			workers.add(this.executor.submit(() -> {
				for (int i = 0; i < 15; i++) {
					owner.executeWithoutResult(request("sem").permits(3).waitTime(Duration.ofSeconds(20)).build(),
							(context) -> {
								most.accumulateAndGet(inside.incrementAndGet(), Math::max);
								busy(2_000_000);
								inside.decrementAndGet();
							});
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(most.get()).isLessThanOrEqualTo(3).isGreaterThanOrEqualTo(2);
	}

	@Test
	void shouldGiveBackThePermitsOfACrashedHolderWhenTheirLeasesEnd() throws Exception {
		for (int i = 0; i < 2; i++) {
			// Never released, as if their holders had died.
			this.template.acquire(request("crashsem").permits(2).lease(Duration.ofMillis(500)).build());
		}
		long start = System.nanoTime();
		assertThat(this.otherProcess.tryAcquire(request("crashsem").permits(2).waitTime(Duration.ZERO).build()))
			.isEmpty();
		try (LockHandle permit = this.otherProcess
			.acquire(request("crashsem").permits(2).waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(400))
				.isLessThan(Duration.ofMillis(2500));
			assertThat(permit.isHeld()).isTrue();
		}
	}

	@Test
	void shouldGrantAFairLockInArrivalOrderAcrossProcesses() throws Exception {
		LockHandle holder = this.template.acquire(request("fair").fair(true).build());
		List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			RedisLockTemplate owner = (i % 2 == 0) ? this.otherProcess : this.template;
			int arrival = i;
			waiters.add(this.executor.submit(() -> owner.executeWithoutResult(
					request("fair").fair(true).waitTime(Duration.ofSeconds(20)).build(), (context) -> {
						order.add(arrival);
						sleep(30);
					})));
			// Each waiter is queued in Redis before the next one arrives.
			await().atMost(Duration.ofSeconds(3))
				.until(() -> queueLength("fair") == arrival + 1);
		}
		holder.close();
		for (Future<?> waiter : waiters) {
			waiter.get(30, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
		assertThat(queueLength("fair")).isZero();
	}

	@Test
	void shouldDropADeadFairWaiterFromTheQueue() throws Exception {
		LockHandle holder = this.template.acquire(request("ghost").fair(true).build());
		// A waiter that queued and then died: its heartbeat runs out in 300 ms.
		String key = this.template.lockKey(LockName.of(this.scope, "ghost"));
		redis().command("ZADD", key + ":queue", "1", "ghost-owner");
		// Redis runs on this machine, so its clock is ours.
		redis().command("ZADD", key + ":queue:heartbeats", Long.toString(System.currentTimeMillis() + 300),
				"ghost-owner");
		Future<LockHandle> next = this.executor
			.submit(() -> this.otherProcess.acquire(request("ghost").fair(true).waitTime(Duration.ofSeconds(15)).build()));
		await().atMost(Duration.ofSeconds(3)).until(() -> queueLength("ghost") == 2);
		long released = System.nanoTime();
		holder.close();
		LockHandle taken = next.get(15, TimeUnit.SECONDS);
		// The ghost's place ends with its heartbeat; the live waiter's next call takes the lock
		// (at most a third of the 5 s fair waiter timeout later).
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofMillis(2500));
		taken.close();
		assertThat(queueLength("ghost")).isZero();
	}

	@Test
	void shouldWakeOnlyTheNextFairWaiter() throws Exception {
		LockHandle holder = this.template.acquire(request("next").fair(true).build());
		List<Future<LockHandle>> waiters = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			RedisLockTemplate owner = (i % 2 == 0) ? this.otherProcess : this.template;
			int arrival = i;
			waiters.add(this.executor
				.submit(() -> owner.acquire(request("next").fair(true).waitTime(Duration.ofSeconds(20)).build())));
			await().atMost(Duration.ofSeconds(3)).until(() -> queueLength("next") == arrival + 1);
		}
		long before = evalCalls();
		holder.close();
		LockHandle first = waiters.get(0).get(5, TimeUnit.SECONDS);
		long calls = evalCalls() - before;
		// The release and the first waiter's acquire; at most one heartbeat may fall in between.
		assertThat(calls).isBetween(2L, 3L);
		first.close();
		for (int i = 1; i < waiters.size(); i++) {
			waiters.get(i).get(10, TimeUnit.SECONDS).close();
		}
	}

	private long queueLength(String key) {
		Object length = redis().command("ZCARD", this.template.lockKey(LockName.of(this.scope, key)) + ":queue");
		return ((Number) length).longValue();
	}

	private long lockChannelSubscriptions() {
		String key = this.template.lockKey(LockName.of(this.scope, "l"));
		return redis().subscribers(LockKeys.releaseChannel(key)) + redis().subscribers("__keyspace@0__:" + key);
	}

	private List<String> lockKeys() {
		List<String> keys = new ArrayList<>();
		for (String key : redis().keys("lock:{" + this.scope + "*")) {
			if (!key.endsWith(":fence")) {
				keys.add(key);
			}
		}
		return keys;
	}

	private LockSpec specOf(String key) {
		String lockKey = this.template.lockKey(LockName.of(this.scope, key));
		return new LockSpec(LockName.of(this.scope, key), lockKey, LockKeys.releaseChannel(lockKey),
				List.of(LockKeys.releaseChannel(lockKey)), 30_000, 0, strategy(), true, false, 1, null, false,
				LockKind.EXCLUSIVE, 0, LockKeys.releaseChannel(lockKey), 5000, 0);
	}

	private org.springframework.data.redis.core.StringRedisTemplate redisOps() {
		return new org.springframework.data.redis.core.StringRedisTemplate(this.connectionFactory);
	}

	protected long evalCalls() {
		Map<String, Long> calls = redis().commandCalls();
		return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
	}

	private <T> T onOtherThread(java.util.concurrent.Callable<T> action) throws Exception {
		return this.executor.submit(action).get(10, TimeUnit.SECONDS);
	}

	static void busy(long nanos) {
		long end = System.nanoTime() + nanos;
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	record LockContextSnapshot(LockName name, long token, boolean waited, int attempts, Duration remainingLease,
			boolean held) {

		static LockContextSnapshot of(LockContext context) {
			return new LockContextSnapshot(context.name(), context.fencingToken(), context.waited(),
					context.attempts(), context.remainingLease(), context.isHeld());
		}

	}

}
