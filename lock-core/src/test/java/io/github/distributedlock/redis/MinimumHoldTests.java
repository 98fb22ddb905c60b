package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.script.ScriptEval;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The minimum hold on a real redis-server: waiters of every kind are woken when a kept
 * lock frees, the kept state matches no extend, and it is kept for inner holds too. Found
 * by a review of the first version: the waking, permit-extend, stale-readers and
 * inner-read-hold tests failed on it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MinimumHoldTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private String scope;

	@BeforeAll
	void start() {
		for (int i = 0; i < 3; i++) {
			LettuceConnectionFactory factory = RedisConnections.standalone(redis.server().host(), redis.server().port(),
					Duration.ofSeconds(10));
			this.factories.add(factory);
			this.templates.add(RedisLockTemplate.builder(factory).build());
		}
	}

	@AfterAll
	void stop() {
		this.executor.shutdownNow();
		this.templates.forEach(RedisLockTemplate::close);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@BeforeEach
	void pickScope(TestInfo info) {
		this.scope = info.getTestMethod().orElseThrow().getName();
	}

	private LockRequest.Builder request(String key) {
		return LockRequest.builder(this.scope).key(key);
	}

	/**
	 * The holder's lease is 10 s, its minimum hold 500 ms, and it releases at once: the
	 * release's hint tells the waiter how long the lock stays kept, so it takes the lock
	 * soon after, not when the holder's lease would have ended (each failed on the first
	 * version, which published nothing).
	 */
	@Test
	void shouldWakeAPubSubWaiterWhenAKeptLockExpires() throws Exception {
		LockHandle held = this.templates.get(0)
			.acquire(request("k").lease(Duration.ofSeconds(10)).holdAtLeast(Duration.ofMillis(500)).build());
		Future<Long> waited = waitFor(this.templates.get(1), request("k").waitTime(Duration.ofSeconds(4)).build());
		Thread.sleep(300);
		held.close();
		assertThat(waited.get(10, TimeUnit.SECONDS)).as("ms until the waiter had the lock (-1: timed out)")
			.isBetween(0L, 2500L);
	}

	/**
	 * The same for a multi-lock waiter, blocked on the first lock of two.
	 */
	@Test
	void shouldWakeAMultiLockWaiterWhenAKeptLockExpires() throws Exception {
		LockHandle held = this.templates.get(0)
			.acquire(request("m1").lease(Duration.ofSeconds(10)).holdAtLeast(Duration.ofMillis(500)).build());
		long start = System.nanoTime();
		Future<Long> waited = this.executor.submit(() -> {
			List<LockRequest> both = List.of(request("m1").waitTime(Duration.ofSeconds(4)).build(),
					request("m2").waitTime(Duration.ofSeconds(4)).build());
			try (LockHandle handle = this.templates.get(1).acquireAll(both)) {
				return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			}
			catch (RuntimeException ex) {
				return -1L;
			}
		});
		Thread.sleep(300);
		held.close();
		assertThat(waited.get(10, TimeUnit.SECONDS)).as("ms until the waiter had both locks (-1: timed out)")
			.isBetween(0L, 2500L);
	}

	/**
	 * A keyspace-events waiter is woken by the kept hash's 'expired' event.
	 */
	@Test
	void shouldWakeAKeyspaceWaiterWhenAKeptLockExpires() throws Exception {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "KEA");
		LockHandle held = this.templates.get(0)
			.acquire(request("ks").lease(Duration.ofSeconds(10)).holdAtLeast(Duration.ofMillis(500)).build());
		Future<Long> waited = waitFor(this.templates.get(1),
				request("ks").waitStrategy(WaitStrategy.KEYSPACE_EVENTS).waitTime(Duration.ofSeconds(4)).build());
		Thread.sleep(300);
		held.close();
		assertThat(waited.get(10, TimeUnit.SECONDS)).as("ms until the waiter had the lock (-1: timed out)")
			.isBetween(0L, 2500L);
	}

	/**
	 * The same for a writer waiting for a reader whose read hold is kept.
	 */
	@Test
	void shouldWakeAWriterWhenAKeptReadHoldExpires() throws Exception {
		LockHandle reader = this.templates.get(0)
			.acquire(request("r").mode(LockMode.READ)
				.lease(Duration.ofSeconds(10))
				.holdAtLeast(Duration.ofMillis(500))
				.build());
		Future<Long> waited = waitFor(this.templates.get(1), request("r").waitTime(Duration.ofSeconds(4)).build());
		Thread.sleep(300);
		reader.close();
		assertThat(waited.get(10, TimeUnit.SECONDS)).as("ms until the writer had the lock (-1: timed out)")
			.isBetween(0L, 2500L);
	}

	/**
	 * The same for a permit waiter.
	 */
	@Test
	void shouldWakeAPermitWaiterWhenAKeptPermitExpires() throws Exception {
		LockHandle permit = this.templates.get(0)
			.acquire(request("p").permits(1).lease(Duration.ofSeconds(10)).holdAtLeast(Duration.ofMillis(500)).build());
		Future<Long> waited = waitFor(this.templates.get(1),
				request("p").permits(1).waitTime(Duration.ofSeconds(4)).build());
		Thread.sleep(300);
		permit.close();
		assertThat(waited.get(10, TimeUnit.SECONDS)).as("ms until the waiter had the permit (-1: timed out)")
			.isBetween(0L, 2500L);
	}

	/**
	 * A waiter filed its request before the release; a newcomer that never waited does
	 * not take the lock ahead of it once the kept state is gone.
	 */
	@Test
	void shouldNotLetANewcomerBargeAheadOfAQueuedWaiterAfterAKeptState() throws Exception {
		LockHandle held = this.templates.get(0)
			.acquire(request("b").lease(Duration.ofSeconds(10)).holdAtLeast(Duration.ofMillis(500)).build());
		Future<Long> waited = waitFor(this.templates.get(1), request("b").waitTime(Duration.ofSeconds(20)).build());
		Thread.sleep(300);
		held.close();
		Thread.sleep(1000);
		boolean newcomerTookIt;
		LockRequest newcomerRequest = request("b").waitTime(Duration.ZERO).build();
		try (LockHandle newcomer = this.templates.get(2).tryAcquire(newcomerRequest).orElse(null)) {
			newcomerTookIt = newcomer != null;
		}
		assertThat(newcomerTookIt).as("a newcomer took the lock the queued waiter was waiting for").isFalse();
		assertThat(waited.get(30, TimeUnit.SECONDS)).isNotNegative();
	}

	/**
	 * A released permit kept for its minimum hold is a stand-in member that no extend
	 * matches, so a watchdog renewal that crosses the release can't give it a full lease
	 * again.
	 */
	@Test
	void shouldNotExtendAPermitKeptAfterItsRelease() {
		String permits = "repro:{" + this.scope + "}:permits";
		List<?> acquired = (List<?>) eval(LockScripts.ACQUIRE_PERMIT,
				List.of(permits, LockKeys.fence("repro:{" + this.scope + "}")), "owner", "permit-hold", "10000", "1",
				"60000");
		assertThat(acquired.get(0)).isEqualTo(1L);
		assertThat(eval(LockScripts.RELEASE_PERMIT, List.of(permits, permits + ":released"), "owner", "permit-hold",
				"500"))
			.isEqualTo(0L);
		assertThat(eval(LockScripts.EXTEND_PERMIT, List.of(permits), "owner", "permit-hold", "60000"))
			.as("extend of a released (kept) permit")
			.isEqualTo(-1L);
	}

	/**
	 * A reader's kept stand-in takes the readers set with it when it ends, so a writer's
	 * release afterwards reserves the lock for the queued request. Script level.
	 */
	@Test
	void shouldReserveForAQueuedWaiterAfterAKeptReadHoldHasPassed() throws Exception {
		String lock = "repro:{" + this.scope + "}";
		List<String> readKeys = List.of(lock + ":readers", lock + ":readholds", lock + ":released");
		List<?> read = (List<?>) eval(LockScripts.ACQUIRE_READ,
				List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":readholds", lock + ":intent",
						lock + ":requests", lock + ":released"),
				"reader", "read-hold", "20000", "1", "60000", "", "30000");
		assertThat(read.get(0)).isEqualTo(1L);
		assertThat(eval(LockScripts.RELEASE_READ, readKeys, "reader", "read-hold", "100")).isEqualTo(0L);
		Thread.sleep(300);
		assertThat(redis.server().command("EXISTS", lock + ":readers")).as("no stale readers set").isEqualTo(0L);
		assertThat(acquire(lock, "writer", "")).isEqualTo(1L);
		assertThat(acquire(lock, "waiter", "2000:w")).isEqualTo(0L);
		String token = String.valueOf(redis.server().command("HGET", lock, "token"));
		assertThat(eval(LockScripts.RELEASE, List.of(lock, lock + ":released", lock + ":requests", lock + ":readers"),
				"writer", token, "writer-hold", "1", "0"))
			.isEqualTo(0L);
		assertThat(redis.server().command("HGET", lock, "reserved")).as("reserved for the queued request")
			.isEqualTo("2000:w");
	}

	private long acquire(String lock, String owner, String request) {
		List<?> reply = (List<?>) eval(LockScripts.ACQUIRE,
				List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":intent", lock + ":requests"), owner,
				owner + "-hold", "20000", "-1", request, "30000", "0", "0", "1", "60000");
		return (Long) reply.get(0);
	}

	/**
	 * Without a kept state, the release reserves the lock for the queued waiter and the
	 * releasing caller cannot take it back.
	 */
	@Test
	void shouldReserveForAQueuedWaiterWithoutAKeptState() throws Exception {
		LockHandle holder = this.templates.get(0).acquire(request("c").lease(Duration.ofSeconds(20)).build());
		Future<Long> waited = waitFor(this.templates.get(1), request("c").waitTime(Duration.ofSeconds(20)).build());
		Thread.sleep(300);
		holder.close();
		boolean bargedBack;
		LockRequest againRequest = request("c").waitTime(Duration.ZERO).build();
		try (LockHandle again = this.templates.get(0).tryAcquire(againRequest).orElse(null)) {
			bargedBack = again != null;
		}
		assertThat(bargedBack).isFalse();
		assertThat(waited.get(30, TimeUnit.SECONDS)).isNotNegative();
	}

	/**
	 * An inner read hold with a minimum hold, released before the outer one: the outer
	 * release keeps the read lock taken for it.
	 */
	@Test
	void shouldHonourTheMinimumHoldOfAnInnerReadHoldReleasedFirst() {
		RedisLockTemplate template = this.templates.get(0);
		LockHandle outer = template.acquire(request("i").mode(LockMode.READ).lease(Duration.ofSeconds(20)).build());
		LockHandle inner = template.acquire(request("i").mode(LockMode.READ)
			.lease(Duration.ofSeconds(20))
			.holdAtLeast(Duration.ofSeconds(5))
			.build());
		inner.close();
		outer.close();
		boolean writerTookIt;
		LockRequest writerRequest = request("i").waitTime(Duration.ZERO).build();
		try (LockHandle writer = this.templates.get(1).tryAcquire(writerRequest).orElse(null)) {
			writerTookIt = writer != null;
		}
		assertThat(writerTookIt).as("a writer took the lock within the inner read hold's minimum hold").isFalse();
	}

	/**
	 * The same with exclusive holds.
	 */
	@Test
	void shouldHonourTheMinimumHoldOfAnInnerExclusiveHoldReleasedFirst() {
		RedisLockTemplate template = this.templates.get(0);
		LockHandle outer = template.acquire(request("e").lease(Duration.ofSeconds(20)).build());
		LockHandle inner = template
			.acquire(request("e").lease(Duration.ofSeconds(20)).holdAtLeast(Duration.ofSeconds(5)).build());
		inner.close();
		outer.close();
		boolean otherTookIt;
		LockRequest otherRequest = request("e").waitTime(Duration.ZERO).build();
		try (LockHandle other = this.templates.get(1).tryAcquire(otherRequest).orElse(null)) {
			otherTookIt = other != null;
		}
		assertThat(otherTookIt).isFalse();
	}

	/**
	 * A custom owner shared by two templates (two processes): the one with a minimum hold
	 * releases first, the other last, and the lock stays kept for the first one's minimum
	 * hold, since its end is recorded in Redis.
	 */
	@Test
	void shouldHonourTheMinimumHoldOfACustomOwnerSharedByTwoProcesses() {
		LockHandle first = this.templates.get(0)
			.acquire(request("shared").owner("job")
				.lease(Duration.ofSeconds(20))
				.holdAtLeast(Duration.ofSeconds(5))
				.build());
		LockHandle second = this.templates.get(1)
			.acquire(request("shared").owner("job").lease(Duration.ofSeconds(20)).build());
		assertThat(second.fencingToken()).as("a re-entry of the same owner").isEqualTo(first.fencingToken());
		first.close();
		second.close();
		boolean otherTookIt;
		LockRequest otherRequest = request("shared").waitTime(Duration.ZERO).build();
		try (LockHandle other = this.templates.get(2).tryAcquire(otherRequest).orElse(null)) {
			otherTookIt = other != null;
		}
		assertThat(otherTookIt).as("taken while the first process's minimum hold lasts").isFalse();
		assertThat(this.templates.get(0).tryAcquire(request("shared").owner("job").waitTime(Duration.ZERO).build()))
			.as("not even by the owner that held it")
			.isEmpty();
	}

	private Future<Long> waitFor(RedisLockTemplate template, LockRequest request) {
		long start = System.nanoTime();
		return this.executor.submit(() -> {
			try (LockHandle handle = template.tryAcquire(request).orElse(null)) {
				if (handle == null) {
					return -1L;
				}
				long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				// Held a while, so that nobody else can take the lock just because it let
				// go.
				Thread.sleep(3000);
				return elapsed;
			}
		});
	}

	private static Object eval(LuaScript<?> script, List<String> keys, String... args) {
		return ScriptEval.eval(redis.server(), script, keys, args);
	}

}
