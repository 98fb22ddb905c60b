package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Adversarial cases of the hand-off inside one JVM ({@code hand-over.lua}, the blocking
 * engine): a head that stops while offered, a grant that comes late, the head's own
 * lease, re-entered and lost releaser holds, minimum holds, and the kinds that must never
 * hand over.
 * <p>
 * Its templates chain no waiters ({@code hintConnections(0)}): a chained head is never
 * offered a local hand-over (docs/design/waiting-and-hand-off.md, "The chained hint").
 */
class HandOverAttackTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldReleaseTheGrantOfAHeadWhoseTemplateShutsDownWhileOffered() throws Exception {
		RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build();
		String key = template.lockKey(LockName.of("attack", "shutdown"));
		LockHandle holder = template.acquire(request("shutdown"));
		Future<Object> head = this.connected.executor().submit(() -> outcome(template, request("shutdown")));
		awaitOffered(template);
		redis.server().command("CLIENT", "PAUSE", "1000", "WRITE");
		CompletableFuture<Void> release = CompletableFuture.runAsync(holder::close, this.connected.executor());
		Thread.sleep(300);
		template.close();
		release.get(10, TimeUnit.SECONDS);
		assertThat(head.get(10, TimeUnit.SECONDS)).isInstanceOf(LockAccessException.class);
		assertThat(template.localGrants()).as("grants").isEqualTo(1);
		assertThat(redis.server().command("EXISTS", key)).as("the unwanted grant released").isEqualTo(0L);
	}

	@Test
	void shouldReleaseALateGrantWhenTheWaitIsOver() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(LockName.of("attack", "late"));
			LockHandle holder = template.acquire(request("late"));
			LockRequest headRequest = request("late").toBuilder()
				.lease(Duration.ofMillis(300))
				.waitTime(Duration.ofMillis(1200))
				.build();
			long start = System.nanoTime();
			Future<Object> head = this.connected.executor().submit(() -> outcome(template, headRequest));
			awaitOffered(template);
			// Longer than the head's lease and than what is left of its wait time.
			redis.server().command("CLIENT", "PAUSE", "1500", "WRITE");
			holder.close();
			Object outcome = head.get(10, TimeUnit.SECONDS);
			long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(outcome).isInstanceOf(LockTimeoutException.class);
			assertThat(tookMillis).as("the head's wait").isLessThan(3000);
			assertThat(template.localGrants()).as("grants").isEqualTo(1);
			assertThat(redis.server().command("EXISTS", key)).as("the late grant released").isEqualTo(0L);
		}
	}

	@Test
	void shouldGrantTheHeadItsOwnShorterLease() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(LockName.of("attack", "lease"));
			LockHandle holder = template.acquire(request("lease"));
			LockRequest headRequest = request("lease").toBuilder()
				.lease(Duration.ofMillis(400))
				.autoRenew(false)
				.build();
			Future<Object> head = this.connected.executor().submit(() -> outcome(template, headRequest));
			awaitOffered(template);
			holder.close();
			LockHandle handle = (LockHandle) head.get(10, TimeUnit.SECONDS);
			long pttl = (Long) redis.server().command("PTTL", key);
			assertThat(template.localGrants()).as("grants").isEqualTo(1);
			assertThat(pttl).as("the lease Redis keeps").isBetween(1L, 400L);
			assertThat(handle.remainingLease()).isLessThanOrEqualTo(Duration.ofMillis(pttl + 5));
			handle.close();
		}
	}

	@Test
	void shouldHandOverOnlyTheLastHoldOfAReenteredLock() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(LockName.of("attack", "reentered"));
			LockHandle outer = template.acquire(request("reentered"));
			LockHandle inner = template.acquire(request("reentered"));
			Future<Object> head = this.connected.executor().submit(() -> outcome(template, request("reentered")));
			awaitOffered(template);
			String owner = hashField(key, "owner");
			inner.close();
			Thread.sleep(200);
			assertThat(head.isDone()).as("head done after the inner release").isFalse();
			assertThat(hashField(key, "owner")).isEqualTo(owner);
			assertThat(hashField(key, "holds")).isEqualTo("1");
			assertThat(outer.isHeld()).isTrue();
			outer.close();
			LockHandle handle = (LockHandle) head.get(10, TimeUnit.SECONDS);
			assertThat(template.localGrants()).as("grants").isEqualTo(1);
			assertThat(handle.fencingToken()).isGreaterThan(outer.fencingToken());
			handle.close();
		}
	}

	@Test
	void shouldNotHandOverAHoldWhoseLeaseWasLost() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build();
				RedisLockTemplate remote = RedisLockTemplate.builder(this.connected.connectionFactory())
					.hintConnections(0)
					.build()) {
			String key = template.lockKey(LockName.of("attack", "lost"));
			LockHandle holder = template.acquire(request("lost"));
			Future<Object> head = this.connected.executor().submit(() -> outcome(template, request("lost")));
			awaitOffered(template);
			// Evicted, and another process takes the lock meanwhile (it files no request:
			// the head's request stays in the line).
			redis.server().command("DEL", key);
			LockHandle other = remote.acquire(request("lost"));
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(holder::close);
			Thread.sleep(300);
			assertThat(template.localGrants()).as("grants").isZero();
			assertThat(hashField(key, "token")).isEqualTo(Long.toString(other.fencingToken()));
			assertThat(head.isDone()).isFalse();
			other.close();
			LockHandle handle = (LockHandle) head.get(10, TimeUnit.SECONDS);
			assertThat(handle.fencingToken()).isGreaterThan(other.fencingToken());
			handle.close();
		}
	}

	@Test
	void shouldNotHandOverBeforeTheMinimumHold() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			LockHandle holder = template
				.acquire(request("minimum").toBuilder().holdAtLeast(Duration.ofMillis(1500)).build());
			Future<Object> head = this.connected.executor().submit(() -> outcome(template, request("minimum")));
			awaitOffered(template);
			long closed = System.nanoTime();
			holder.close();
			LockHandle handle = (LockHandle) head.get(10, TimeUnit.SECONDS);
			long after = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed);
			assertThat(template.localGrants()).as("grants").isZero();
			assertThat(after).as("ms after the release").isGreaterThanOrEqualTo(1000);
			handle.close();
		}
	}

	@Test
	void shouldNeverHandOverFairOrReadLocks() throws Exception {
		redis.server().command("SCRIPT", "FLUSH");
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			for (LockRequest each : List.of(request("fair").toBuilder().fair(true).build(),
					request("read").toBuilder().mode(LockMode.READ).build())) {
				LockHandle holder = template.acquire(each);
				LockHandle writer = null;
				Future<Object> waiter;
				if (each.mode() == LockMode.READ) {
					// A reader blocked by a writer, and the writer's release.
					holder.close();
					writer = template.acquire(each.toBuilder().mode(LockMode.WRITE).build());
				}
				waiter = this.connected.executor().submit(() -> outcome(template, each));
				Thread.sleep(500);
				((writer != null) ? writer : holder).close();
				((LockHandle) waiter.get(10, TimeUnit.SECONDS)).close();
			}
			assertThat(template.localGrants()).as("grants").isZero();
			assertThat(scriptLoaded(LockScripts.HAND_OVER.sha1())).as("hand-over.lua sent").isFalse();
		}
	}

	/**
	 * The design note lets the release of a multi-lock's hold hand over (only multi-lock
	 * waits never offer): each hold is a plain lock's, and the script checks it.
	 */
	@Test
	void shouldHandOverFromTheReleaseOfAMultiLock() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			LockHandle multi = template.acquireAll(List.of(request("multi-a"), request("multi-b")));
			Future<Object> head = this.connected.executor().submit(() -> outcome(template, request("multi-a")));
			awaitOffered(template);
			multi.close();
			LockHandle handle = (LockHandle) head.get(10, TimeUnit.SECONDS);
			assertThat(template.localGrants()).as("grants").isEqualTo(1);
			assertThat(handle.isHeld()).isTrue();
			handle.close();
		}
	}

	@Test
	void shouldKeepAGrantWhenTheHeadsOwnerClosesAnOlderLostHandle() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(LockName.of("attack", "stale"));
			LockRequest shortLease = request("stale").toBuilder()
				.lease(Duration.ofMillis(200))
				.autoRenew(false)
				.owner("owner-y")
				.build();
			LockHandle stale = template.acquire(shortLease);
			Thread.sleep(400);
			LockHandle holder = this.connected.executor().submit(() -> template.acquire(request("stale"))).get();
			Future<Object> head = this.connected.executor()
				.submit(() -> outcome(template, shortLease.toBuilder().lease(Duration.ofSeconds(10)).build()));
			awaitOffered(template);
			this.connected.executor().submit(holder::close).get();
			LockHandle handle = (LockHandle) head.get(10, TimeUnit.SECONDS);
			assertThat(template.localGrants()).as("grants").isEqualTo(1);
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(stale::close);
			assertThat(hashField(key, "token")).isEqualTo(Long.toString(handle.fencingToken()));
			assertThat(hashField(key, "holds")).isEqualTo("1");
			assertThat(handle.isHeld()).isTrue();
			handle.close();
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		}
	}

	@Test
	void shouldLetTheHeadFindTheGrantOfAnInterruptedRelease() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(LockName.of("attack", "interrupted-release"));
			AtomicReference<Object> releaseOutcome = new AtomicReference<>();
			CompletableFuture<LockHandle> held = new CompletableFuture<>();
			CompletableFuture<Void> release = new CompletableFuture<>();
			Thread releaser = new Thread(() -> {
				LockHandle holder = template.acquire(request("interrupted-release"));
				held.complete(holder);
				release.join();
				try {
					holder.close();
					releaseOutcome.set("released");
				}
				catch (RuntimeException ex) {
					releaseOutcome.set(ex);
				}
			});
			releaser.start();
			LockHandle holder = held.get(10, TimeUnit.SECONDS);
			Future<Object> head = this.connected.executor()
				.submit(() -> outcome(template, request("interrupted-release")));
			awaitOffered(template);
			redis.server().command("CLIENT", "PAUSE", "1000", "WRITE");
			release.complete(null);
			Thread.sleep(300);
			releaser.interrupt();
			releaser.join(10_000);
			Object outcome = head.get(10, TimeUnit.SECONDS);
			assertThat(releaseOutcome.get()).as("the interrupted release").isInstanceOf(RuntimeException.class);
			assertThat(outcome).isInstanceOf(LockHandle.class);
			LockHandle handle = (LockHandle) outcome;
			assertThat(handle.fencingToken()).isGreaterThan(holder.fencingToken());
			assertThat(hashField(key, "token")).isEqualTo(Long.toString(handle.fencingToken()));
			assertThat(hashField(key, "holds")).isEqualTo("1");
			handle.close();
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		}
	}

	/**
	 * Threads of two templates (one hands off inside the JVM, one is "another process")
	 * with their own owners, a custom owner shared by two threads, re-entries, minimum
	 * holds, a renewed holder and leases from 200 ms to 10 s (then from 20 ms, some
	 * outstayed, and waiting by keyspace events): no two owners hold at once, tokens
	 * rise, and each handle's deadline is within the lease Redis keeps.
	 */
	@Test
	void shouldKeepExclusionAndDeadlinesUnderMixedContention() throws Exception {
		mixedContention(200, 300, 0, WaitStrategy.PUBSUB);
	}

	@Test
	void shouldKeepExclusionAndDeadlinesWaitingByKeyspaceEvents() throws Exception {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "Kgx");
		try {
			mixedContention(20, 40, 8, WaitStrategy.KEYSPACE_EVENTS);
		}
		finally {
			redis.server().command("CONFIG", "SET", "notify-keyspace-events", "");
		}
	}

	@Test
	void shouldKeepExclusionAndDeadlinesWithShortAndLostLeases() throws Exception {
		mixedContention(20, 40, 8, WaitStrategy.PUBSUB);
	}

	private void mixedContention(int shortLease, int spread, int overstayOneIn, WaitStrategy strategy)
			throws Exception {
		try (RedisLockTemplate local = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.localHandOffs(3)
			.build();
				RedisLockTemplate remote = RedisLockTemplate.builder(this.connected.connectionFactory())
					.hintConnections(0)
					.build()) {
			String key = local.lockKey(LockName.of("attack", "mixed"));
			ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
			// Who is inside, by group: the handles of its threads. Another group inside
			// is an overlap only while one of its handles' leases still runs by its own
			// clock, which ends before the lease Redis keeps: a lease that lapsed (a 20
			// ms lease on a loaded machine) lets the lock go, and is the test's own
			// doing.
			Map<String, List<LockHandle>> inside = new HashMap<>();
			AtomicInteger lapsedOverlaps = new AtomicInteger();
			AtomicInteger lostLeases = new AtomicInteger();
			AtomicLong lastToken = new AtomicLong(-1);
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 6; t++) {
				int thread = t;
				threads.add(this.connected.executor().submit(() -> {
					Random random = new Random(thread);
					RedisLockTemplate template = (thread == 5) ? remote : local;
					String owner = (thread == 3 || thread == 4) ? "shared-owner" : null;
					String group = (owner != null) ? owner : "thread-" + thread;
					long leaseMillis = (thread % 2 == 0) ? shortLease + random.nextInt(spread) : 10_000;
					while (System.nanoTime() - end < 0) {
						LockRequest.Builder builder = request("mixed").toBuilder()
							.lease(Duration.ofMillis(leaseMillis))
							.autoRenew(thread == 1 || (thread == 2 && overstayOneIn == 0))
							.owner(owner)
							.waitStrategy(strategy);
						if (random.nextInt(5) == 0) {
							builder.holdAtLeast(Duration.ofMillis(random.nextInt(5)));
						}
						try (LockHandle handle = template.acquire(builder.build())) {
							Object pttl = redis.server().command("PTTL", key);
							long remaining = handle.remainingLease().toMillis();
							if (pttl instanceof Long millis && remaining > millis + 2) {
								failures.add(group + ": local lease " + remaining + " ms, Redis " + millis + " ms");
							}
							synchronized (inside) {
								enter(inside, group, handle, failures, lapsedOverlaps);
								if (handle.fencingToken() < lastToken.get() && owner == null) {
									// A greater token came later; while this lease still
									// runs, nobody could have taken the lock since.
									if (handle.remainingLease().toNanos() > 0) {
										failures.add("token " + handle.fencingToken() + " after " + lastToken.get());
									}
									else {
										lapsedOverlaps.incrementAndGet();
									}
								}
								lastToken.accumulateAndGet(handle.fencingToken(), Math::max);
							}
							// It leaves even if a lapsed lease makes the re-entry's
							// release throw: else the group would stay inside for good.
							try {
								if (random.nextInt(4) == 0) {
									try (LockHandle again = template.acquire(builder.build())) {
										// Its own hold if the outer one lapsed while it
										// waited.
										synchronized (inside) {
											enter(inside, group, again, failures, lapsedOverlaps);
										}
										try {
											pause(1);
										}
										finally {
											synchronized (inside) {
												leave(inside, group, again);
											}
										}
									}
								}
							}
							finally {
								synchronized (inside) {
									leave(inside, group, handle);
								}
							}
							if (overstayOneIn > 0 && leaseMillis < 1000 && random.nextInt(overstayOneIn) == 0) {
								// Past its lease: lost, then released (refused or
								// reported lost).
								pause(leaseMillis + 20);
							}
							else {
								pause(random.nextInt(3));
							}
						}
						catch (LockLeaseLostException ex) {
							// A lease that ran out while "inside" is the test's own
							// doing.
							lostLeases.incrementAndGet();
						}
					}
				}));
			}
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			System.out.println("mixed contention: " + local.localGrants() + " grants, " + local.localPassedOn()
					+ " passed on at the limit, " + lostLeases + " leases lost, " + lapsedOverlaps
					+ " overlaps after a lapsed lease, failures " + failures);
			assertThat(failures).isEmpty();
			assertThat(local.localGrants()).isPositive();
		}
	}

	/**
	 * Note a handle of the group inside, and an overlap with each other group inside: a
	 * failure while one of its leases still runs, else the test's own doing.
	 */
	private static void enter(Map<String, List<LockHandle>> inside, String group, LockHandle handle,
			ConcurrentLinkedQueue<String> failures, AtomicInteger lapsedOverlaps) {
		inside.forEach((other, handles) -> {
			if (!other.equals(group)) {
				long left = handles.stream().mapToLong((each) -> each.remainingLease().toNanos()).max().orElse(0);
				if (left > 0) {
					failures.add(group + " inside while " + other + " holds (" + left + " ns of its lease left)");
				}
				else {
					lapsedOverlaps.incrementAndGet();
				}
			}
		});
		inside.computeIfAbsent(group, (each) -> new ArrayList<>()).add(handle);
	}

	private static void leave(Map<String, List<LockHandle>> inside, String group, LockHandle handle) {
		List<LockHandle> handles = inside.get(group);
		handles.remove(handle);
		if (handles.isEmpty()) {
			inside.remove(group);
		}
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static Object outcome(RedisLockTemplate template, LockRequest request) {
		try {
			return template.acquire(request);
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	private static void awaitOffered(RedisLockTemplate template) throws InterruptedException {
		// The head files its request and sleeps, or, behind a hold of its own template,
		// offers itself first without filing it (docs/design/waiting-and-hand-off.md,
		// "Offering before the first attempt"): either way its offer is out a moment
		// after it waits. Counting the requests in Redis missed the second way whenever
		// the head's channel was subscribed by the time it came first.
		await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
		Thread.sleep(200);
	}

	private static boolean scriptLoaded(byte[] sha1) {
		Object reply = redis.server().command("SCRIPT", "EXISTS", new String(sha1, StandardCharsets.US_ASCII));
		return String.valueOf(reply).contains("1");
	}

	private static String hashField(String key, String field) {
		return String.valueOf(redis.server().command("HGET", key, field));
	}

	private static LockRequest request(String key) {
		return LockRequest.builder("attack")
			.key(key)
			.lease(Duration.ofSeconds(10))
			.waitTime(Duration.ofSeconds(20))
			.build();
	}

}
