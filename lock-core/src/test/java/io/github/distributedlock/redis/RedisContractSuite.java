package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.contract.LockTemplateContractTests;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptReplies;
import io.github.distributedlock.redis.server.ScriptRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.Arguments;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract suite against a real redis-server, once per topology and wait strategy
 * ({@link ContractTopology}): the engine-neutral {@link LockTemplateContractTests}, plus
 * what only the Redis engine has (reservations, command counts, subscriptions, force
 * release, fair queue heartbeats). Each row starts its servers once, before its tests,
 * and stops them after. Six classes run its rows, in test JVMs side by side:
 * {@link LockContractTests} and {@link LockContractPollingTests} (standalone),
 * {@link LockContractSentinelTests}, {@link LockContractClusterTests},
 * {@link LockContractJedisTests} and {@link LockContractOtherServersTests} (Redis 6.2,
 * Valkey). {@code -Dcontract.topologies=VALKEY_8_0} (names of {@link ContractTopology},
 * comma-separated) runs only those rows, and {@code -Dcontract.strategies=PUBSUB} only
 * the rows of those wait strategies.
 */
abstract class RedisContractSuite extends LockTemplateContractTests<RedisLockTemplate> {

	@Parameter(0)
	ContractTopology topology;

	@Parameter(1)
	WaitStrategy strategy;

	private ContractTopology.Running running;

	private RedisConnectionFactory connectionFactory;

	/**
	 * Return the rows of these topologies that
	 * {@value ContractTopology#SELECTED_PROPERTY} selects.
	 */
	static Stream<Arguments> rowsOf(Set<ContractTopology> topologies) {
		return ContractTopology.rows((topology) -> topologies.contains(topology)
				? topology.strategies().stream().map((strategy) -> Arguments.of(topology, strategy)).toList()
				: List.of())
			.stream();
	}

	protected WaitStrategy strategy() {
		return this.strategy;
	}

	protected TestRedis redis() {
		return this.running.redis();
	}

	protected RedisLockTemplateBuilder configure(RedisLockTemplateBuilder builder) {
		return builder.configureKeyspaceEvents(true).subscriptionLinger(Duration.ofMillis(200));
	}

	@BeforeParameterizedClassInvocation
	void startRedisAndTemplates(ContractTopology topology, WaitStrategy strategy) {
		this.running = topology.start();
		this.connectionFactory = this.running.redis().connectionFactory();
		LockDefaults defaults = LockDefaults.STANDARD.withWaitStrategy(strategy)
			.withPollInterval(Duration.ofMillis(20))
			.withWaitTime(Duration.ofSeconds(5));
		this.template = configure(RedisLockTemplate.builder(this.connectionFactory).defaults(defaults)).build();
		this.otherProcess = configure(RedisLockTemplate.builder(this.connectionFactory).defaults(defaults)).build();
	}

	@AfterParameterizedClassInvocation
	void stopTemplatesAndRedis() throws Exception {
		ContractTopology.stop(this.running, this.connectionFactory, this.template, this.otherProcess);
	}

	@Override
	protected String scopePrefix() {
		return String.valueOf(strategy().name().charAt(0));
	}

	@Override
	protected Collection<?> locksLeftBehind(String scope) {
		return lockKeys();
	}

	@Override
	protected long fairWaiters(LockName name) {
		return queueLength(name.key());
	}

	@Override
	protected boolean countsWakeUpCommands() {
		return strategy() != WaitStrategy.POLLING;
	}

	@Override
	protected long commandCount() {
		return evalCalls();
	}

	@Test
	void shouldRefuseReleaseAndExtendByAStranger() {
		try (LockHandle held = this.template.acquire(request("x").build())) {
			LockSpec spec = specOf("x");
			ScriptRunner stranger = new ScriptRunner(this.connectionFactory);
			// A stranger knows the key, the token and even the hold's id (a field of the
			// lock hash), but not the secret owner id.
			String hold = redisOps().<String, String>opsForHash()
				.keys(spec.lockKey())
				.stream()
				.filter((field) -> field.startsWith("#"))
				.findFirst()
				.orElseThrow()
				.substring(1);
			String guessed = "guessed-owner:1";
			assertThat(stranger.<Long>execute(spec.kind().release(spec, guessed, held.fencingToken(), hold, true, 0)))
				.isEqualTo(-2);
			assertThat(stranger.<Long>execute(spec.kind().extend(spec, guessed, held.fencingToken(), hold, 60_000)))
				.isEqualTo(-2);
			assertThat(held.isHeld()).isTrue();
			assertThat(this.template.isLocked(this.scope, "x")).isTrue();
		}
	}

	@Test
	void shouldTakeOverAHoldWhoseReplyWasLostInsteadOfCountingIt() {
		// A hold this thread has no handle on, as after an acquire whose reply never
		// came.
		RedisLockHandle ghost = (RedisLockHandle) this.template.acquire(request("ghost").build());
		TemplateHolds.registry(this.template).forget(ghost);
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
		// A holder that hands the lock to a new holder every 150 ms without ever leaving
		// it free: the token changes and waiters are told, as after a real release and
		// re-acquire.
		String key = this.template.lockKey(LockName.of(this.scope, "p"));
		redis().command("HSET", key, "owner", "someone-else", "holds", "1", "token", "1");
		redis().command("PEXPIRE", key, "10000");
		CountDownLatch started = new CountDownLatch(1);
		Future<?> handoffs = this.executor.submit(() -> {
			started.countDown();
			for (int token = 2; token <= 10; token++) {
				sleep(150);
				redis().command("HSET", key, "token", Integer.toString(token));
				redis().command("PUBLISH", LockKeys.releaseChannel(key), Integer.toString(token));
				if (strategy() == WaitStrategy.KEYSPACE_EVENTS) {
					// Keyspace waiters only hear deletions; make the handoff look like
					// one.
					redis().command("PUBLISH", "__keyspace@0__:" + key, "del");
				}
			}
			return null;
		});
		// Waits 600 ms without progress, four handoffs' time: a handoff thread late by
		// less than 450 ms on a loaded machine still counts as progress.
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> this.template
			.acquire(request("p").waitTime(Duration.ofMillis(600)).progressAwareTimeout(true).build()));
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		handoffs.get(5, TimeUnit.SECONDS);
		if (strategy() == WaitStrategy.POLLING) {
			// Polling sees every handoff too, just later.
			assertThat(waited).isGreaterThan(Duration.ofMillis(1200));
		}
		else {
			// Nine handoffs over 1350 ms kept it waiting; then 600 ms without progress.
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
	void shouldReserveTheLockForAWaiterOfAnotherProcess() throws Exception {
		LockHandle held = this.template.acquire(request("h").lease(Duration.ofSeconds(30)).build());
		CountDownLatch asserted = new CountDownLatch(1);
		Future<LockContextSnapshot> waiter = this.executor.submit(() -> this.otherProcess
			.execute(request("h").lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(9)).build(), (context) -> {
				LockContextSnapshot snapshot = LockContextSnapshot.of(context);
				try {
					asserted.await(9, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return snapshot;
			}));
		String requestsKey = LockKeys.requests(specOf("h").lockKey());
		await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redisOps().hasKey(requestsKey)));
		held.close();
		// Reserved for the waiter inside the release: nobody can barge in, the releaser
		// included.
		assertThat(this.template.tryAcquire(request("h").waitTime(Duration.ZERO).build())).isEmpty();
		asserted.countDown();
		LockContextSnapshot context = waiter.get(9, TimeUnit.SECONDS);
		assertThat(context.waited()).isTrue();
		assertThat(context.token()).isGreaterThan(held.fencingToken());
		// Its own attempt took the lock, with the lease it asked for counted from that
		// attempt.
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
		// A request filed by a waiter whose process then died: it will never take the
		// lock.
		redisOps().opsForZSet().add(LockKeys.requests(spec.lockKey()), "2000:dead.1", System.currentTimeMillis());
		// Filed as the engine files a request: the hold is marked as one that requests
		// wait for.
		redisOps().opsForHash().put(spec.lockKey(), "queued", "1");
		held.close();
		assertThat(redisOps().opsForHash().get(spec.lockKey(), "owner")).as("reserved, not held").isEqualTo("");
		assertThat(redisOps().opsForHash().get(spec.lockKey(), "reserved")).isEqualTo("2000:dead.1");
		assertThat(redisOps().getExpire(spec.lockKey(), TimeUnit.MILLISECONDS)).isBetween(1L,
				HandOffRequest.CLAIM_MILLIS);
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
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Boolean.TRUE.equals(redisOps().hasKey(LockKeys.requests(spec.lockKey()))));
		// Ahead of the live waiter: a request from a process that died while waiting.
		redisOps().opsForZSet().add(LockKeys.requests(spec.lockKey()), "2000:dead.2", 0);
		long released = System.nanoTime();
		held.close();
		// The live waiter sleeps until the holder's 30 s lease or its next filing 15 s
		// away, unless the reservation for the dead process wakes it to wait for that
		// claim instead.
		try (LockHandle next = waiter.get(8, TimeUnit.SECONDS)) {
			assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofMillis(3500));
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
	}

	@Test
	void shouldWithdrawTheRequestWhenTheWaitEnds() throws Exception {
		try (LockHandle held = this.template.acquire(request("t").build())) {
			assertThat(this.otherProcess.tryAcquire(request("t").waitTime(Duration.ofMillis(300)).build())).isEmpty();
			assertThat(redisOps().hasKey(LockKeys.requests(specOf("t").lockKey()))).isFalse();
		}
		assertThat(this.template.isLocked(this.scope, "t")).as("reserved for nobody").isFalse();
	}

	@Test
	void shouldPassOnAReservationWhoseWaiterGaveUpMeanwhile() {
		LockSpec spec = specOf("u");
		ScriptRunner scripts = new ScriptRunner(this.connectionFactory);
		HandOffRequest request = HandOffRequest.of(0, UniqueIds.ofProcess());
		LockHandle held = this.template.acquire(request("u").build());
		List<?> reply = scripts.execute(spec.kind()
			.acquire(spec, new Acquisition.Attempt("gave-up:1", "gave-up-hold", 0, 5000, false, false, request, 1),
					60000));
		assertThat(ScriptReplies.acquireResult(spec, reply).acquired()).isFalse();
		held.close();
		assertThat(this.template.isLocked(this.scope, "u")).as("reserved").isTrue();
		scripts.execute(LockKind.withdraw(spec, request, true));
		assertThat(this.template.isLocked(this.scope, "u")).isFalse();
		assertThat(redisOps().hasKey(LockKeys.requests(spec.lockKey()))).isFalse();
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
	void shouldDropADeadFairWaiterFromTheQueue() throws Exception {
		LockHandle holder = this.template.acquire(request("ghost").fair(true).build());
		// A waiter that queued and then died: its heartbeat runs out in 300 ms.
		String key = this.template.lockKey(LockName.of(this.scope, "ghost"));
		redis().command("ZADD", key + ":queue", "1", "ghost-owner");
		// Redis runs on this machine, so its clock is ours.
		redis().command("ZADD", key + ":queue:heartbeats", Long.toString(System.currentTimeMillis() + 300),
				"ghost-owner");
		Future<LockHandle> next = this.executor.submit(
				() -> this.otherProcess.acquire(request("ghost").fair(true).waitTime(Duration.ofSeconds(15)).build()));
		await().atMost(Duration.ofSeconds(3)).until(() -> queueLength("ghost") == 2);
		long released = System.nanoTime();
		holder.close();
		LockHandle taken = next.get(15, TimeUnit.SECONDS);
		// The ghost's place ends with its heartbeat; the live waiter's next call takes
		// the lock (at most a third of the 5 s fair waiter timeout later).
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
		// The release and the first waiter's acquire; at most one heartbeat may fall in
		// between.
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
		return new LockSpec(LockName.of(this.scope, key), lockKey, LockKeys.releaseChannel(lockKey), LockKind.EXCLUSIVE,
				0, LockKeys.releaseChannel(lockKey), 30_000, 0, false, false, 0, 5000,
				new WaitMode(strategy(), List.of(LockKeys.releaseChannel(lockKey)), 1), true, null);
	}

	private org.springframework.data.redis.core.StringRedisTemplate redisOps() {
		return new org.springframework.data.redis.core.StringRedisTemplate(this.connectionFactory);
	}

	protected long evalCalls() {
		Map<String, Long> calls = redis().commandCalls();
		return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L) + calls.getOrDefault("fcall", 0L);
	}

}
