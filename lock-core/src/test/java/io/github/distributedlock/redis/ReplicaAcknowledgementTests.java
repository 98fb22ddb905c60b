package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.AcquiredLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The optional {@code WAIT} for replicas after each acquisition, on a Sentinel group.
 */
class ReplicaAcknowledgementTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisSentinelTopology> topology = RedisTopologyExtension.sentinel();

	@Test
	void shouldAcquireOnceTheReplicaHasTheLock() {
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build(); LockHandle held = template.acquire(LockRequest.of("replicated", "1"))) {
			Object owner = topology.topology().replica().command("HGET", template.lockKey(held.name()), "owner");
			assertThat(owner).as("the replica already has the lock").isNotNull();
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

	@Test
	void shouldCheckTheReplicasOfEachLockOfAMultiLockTakenLockByLock() {
		// A multi-lock of one lock is taken lock by lock, as one across Cluster slots:
		// its
		// replica check must not block the thread that read the grant, which the check's
		// own commands need.
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build();
				LockHandle held = template.acquireAll(List
					.of(LockRequest.builder("replicated").key("in-order").waitTime(Duration.ofSeconds(1)).build()))) {
			Object owner = topology.topology()
				.replica()
				.command("HGET", template.lockKey(held.locks().get(0).name()), "owner");
			assertThat(owner).as("the replica already has the lock").isNotNull();
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

	@Test
	void shouldRefuseALockThatTheReplicasDidNotAcknowledge() {
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(2, Duration.ofMillis(100))
			.build()) {
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquire(LockRequest.of("replicated", "2")))
				.withMessageContaining("replicated:2")
				.withMessageContaining("1 of 2 replicas");
			assertThat(template.isLocked("replicated", "2")).as("released again").isFalse();
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

	/**
	 * A replica that acknowledges only after the hold's lease ended: another caller may
	 * hold the lock by then, so the check refuses the hold and releases it, on both
	 * templates. Before, the caller got a handle whose lease had already run out.
	 */
	@Test
	void shouldRefuseALockThatTheReplicaAcknowledgedOnlyAfterItsLease() throws Exception {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		LockRequest request = LockRequest.builder("replicated").key("late").lease(Duration.ofMillis(100)).build();
		try (RedisLockTemplate blocking = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(2))
			.build();
				ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate.builder(factory)
					.replicaAcknowledgements(1, Duration.ofSeconds(2))
					.build()) {
			try (Stall replica = new Stall(400)) {
				assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> blocking.acquire(request))
					.withMessageContaining("replicated:late")
					.withMessageContaining("lease of 100 ms had ended");
			}
			try (Stall replica = new Stall(400)) {
				assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> reactive.acquire(request).block(Duration.ofSeconds(10)))
					.withMessageContaining("replicated:late")
					.withMessageContaining("lease of 100 ms had ended");
			}
			assertThat(blocking.isLocked("replicated", "late")).as("released, or its lease over").isFalse();
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * The counterpart, just below the lease, of the refusal above: a replica that
	 * acknowledges only once the check's {@code WAIT} has waited for it, yet well within
	 * the hold's lease. Both templates wait for it and return the hold, which Redis has
	 * on the master with the handle's fencing token and on the replica too, with some of
	 * its lease left, and which releases normally.
	 */
	@Test
	void shouldAcquireALockThatTheReplicaAcknowledgedLateButWithinItsLease() throws Exception {
		// The replica stops for 500 ms, five times the default WAIT timeout (100 ms): the
		// check's WAIT (2 s here, as above) is not answered at once but waits for it. The
		// lease of 1.5 s leaves 1 s beyond the stall for what a loaded machine adds
		// before the acknowledgement is read (the resuming thread's scheduling, the
		// replica catching up, the replies: some 40 ms when idle), and the WAIT's 2 s and
		// the client's command timeout of 2 s leave more. The lease stays below those 2 s
		// so that a stall just past it is still answered, and refused for the lease as in
		// the test above, not for a timeout. 500 ms also stays below Sentinel's
		// down-after-milliseconds (1 s): the replica is never reported down.
		long stallMillis = 500;
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		LockRequest request = LockRequest.builder("replicated").key("in-lease").lease(Duration.ofMillis(1500)).build();
		try (RedisLockTemplate blocking = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(2))
			.build();
				ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate.builder(factory)
					.replicaAcknowledgements(1, Duration.ofSeconds(2))
					.build()) {
			LockHandle held = acquireDuringAStall(stallMillis, () -> blocking.acquire(request));
			assertHeldOnTheMasterAndTheReplica(blocking.lockKey(held.name()), held.fencingToken());
			held.close();
			assertThat(topology.topology().master().command("EXISTS", blocking.lockKey(held.name())))
				.as("released by the blocking handle")
				.isEqualTo(0L);
			ReactiveLockHandle heldReactively = acquireDuringAStall(stallMillis,
					() -> reactive.acquire(request).block(Duration.ofSeconds(10)));
			assertHeldOnTheMasterAndTheReplica(reactive.lockKey(request), heldReactively.fencingToken());
			heldReactively.release().block(Duration.ofSeconds(10));
			assertThat(topology.topology().master().command("EXISTS", reactive.lockKey(request)))
				.as("released by the reactive handle")
				.isEqualTo(0L);
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * Acquire while the replica is stopped for the given time, and check the hold as it
	 * is returned: not before the replica went on, and with some of its lease left.
	 */
	private static <H extends AcquiredLock> H acquireDuringAStall(long stallMillis, Supplier<@Nullable H> acquire)
			throws InterruptedException {
		// Read before the replica stops, so that the whole stall lies within the time
		// measured: no acknowledgement can come before it ends.
		long started = System.nanoTime();
		H held;
		Duration took;
		Duration left;
		try (Stall replica = new Stall(stallMillis)) {
			held = acquire.get();
			took = Duration.ofNanos(System.nanoTime() - started);
			assertThat(held).as("the hold").isNotNull();
			left = held.remainingLease();
		}
		assertThat(took).as("the acquisition, which waited for the stopped replica")
			.isGreaterThanOrEqualTo(Duration.ofMillis(stallMillis));
		assertThat(left).as("the lease left when the hold was returned").isPositive();
		return held;
	}

	/**
	 * Assert that the master has the lock with the given fencing token, and that the
	 * replica, going on again, has it too.
	 */
	private static void assertHeldOnTheMasterAndTheReplica(String lockKey, long fencingToken) {
		assertThat(topology.topology().master().command("HGET", lockKey, "token")).as("the master's hold")
			.isEqualTo(Long.toString(fencingToken));
		assertThat(topology.topology().replica().command("HGET", lockKey, "token")).as("the replica's hold")
			.isEqualTo(Long.toString(fencingToken));
	}

	/**
	 * A caller that waits indefinitely has no call bound: the check is waited for as long
	 * as it takes (it failed at once when the wait's bound overflowed).
	 */
	@Test
	void shouldAcquireOnceTheReplicaHasTheLockWhenTheCallWaitsIndefinitely() {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build();
				LockHandle held = template
					.acquire(LockRequest.builder("replicated").key("indefinitely").waitIndefinitely().build())) {
			Object owner = topology.topology().replica().command("HGET", template.lockKey(held.name()), "owner");
			assertThat(owner).as("the replica already has the lock").isNotNull();
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A reactive caller that cancels while the replica check waits: nobody takes the
	 * hold, so it is released once the check ends, not left for its lease.
	 */
	@Test
	void shouldReleaseALockWhoseReactiveCallerCancelledDuringItsReplicaCheck() throws InterruptedException {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		LockRequest request = LockRequest.of("replicated", "cancelled");
		try (RedisLockTemplate blocking = RedisLockTemplate.builder(factory).build();
				ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate.builder(factory)
					.replicaAcknowledgements(1, Duration.ofSeconds(2))
					.build()) {
			// The stall ends within the check's 2 s, so the check confirms the hold after
			// the cancel. The caller cancels once Redis has the lock, not at a fixed
			// time: on
			// a loaded machine the first attempt may take longer than any such time.
			try (Stall replica = new Stall(1500)) {
				reactor.core.Disposable caller = reactive.acquire(request).subscribe();
				// Read on the master: the replica, paused, answers nothing until it
				// resumes.
				String lockKey = reactive.lockKey(request);
				await().atMost(Duration.ofMillis(1200))
					.pollInterval(Duration.ofMillis(10))
					.untilAsserted(() -> assertThat(topology.topology().master().command("HGET", lockKey, "owner"))
						.as("held while its check waits")
						.isNotNull());
				caller.dispose();
			}
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(blocking.isLocked("replicated", "cancelled"))
					.as("released once the check ended, long before its lease of 30 s")
					.isFalse());
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A blocking caller interrupted while the replica check waits: the interrupt cancels
	 * the acquisition, as it does while the lock is waited for, and the hold is released
	 * once the check ends. Before, the interrupt was held back until the check confirmed
	 * the hold, and the caller got the lock.
	 */
	@Test
	void shouldReleaseALockWhoseBlockingCallerWasInterruptedDuringItsReplicaCheck() throws Exception {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		LockRequest request = LockRequest.of("replicated", "interrupted");
		try (RedisLockTemplate checked = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(2))
			.build(); RedisLockTemplate plain = RedisLockTemplate.builder(factory).build()) {
			Thread caller = Thread.currentThread();
			try (Stall replica = new Stall(600)) {
				Thread interrupter = new Thread(() -> {
					try {
						Thread.sleep(200);
					}
					catch (InterruptedException ex) {
						return;
					}
					caller.interrupt();
				}, "interrupter");
				interrupter.start();
				long start = System.nanoTime();
				assertThatExceptionOfType(LockInterruptedException.class)
					.isThrownBy(() -> checked.acquire(request).close())
					.withMessageContaining("replicated:interrupted");
				assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
				assertThat(Duration.ofNanos(System.nanoTime() - start))
					.as("left at the interrupt, not when the stalled replica answered")
					.isLessThan(Duration.ofMillis(550));
				interrupter.join();
			}
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(plain.isLocked("replicated", "interrupted"))
					.as("released once the check ended, long before its lease of 30 s")
					.isFalse());
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * The replica's process stopped ({@code SIGSTOP}), so that it acknowledges nothing,
	 * and let go on after a while on a thread of its own.
	 */
	private static final class Stall implements AutoCloseable {

		private final Thread resume;

		Stall(long millis) {
			RedisProcess replica = topology.topology().replica();
			replica.pause();
			this.resume = new Thread(() -> {
				try {
					Thread.sleep(millis);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					replica.resume();
				}
			}, "replica-resume");
			this.resume.start();
		}

		@Override
		public void close() throws InterruptedException {
			this.resume.join();
		}

	}

	@Test
	void shouldAcquireOnceTheReplicaHasTheLockOnTheReactiveTemplate() {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build()) {
			LockRequest request = LockRequest.of("replicated", "reactive-1");
			ReactiveLockHandle held = template.acquire(request).block(Duration.ofSeconds(10));
			Object owner = topology.topology().replica().command("HGET", template.lockKey(request), "owner");
			assertThat(owner).as("the replica already has the lock").isNotNull();
			held.release().block(Duration.ofSeconds(10));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldRefuseALockThatTheReplicasDidNotAcknowledgeOnTheReactiveTemplate() {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.replicaAcknowledgements(2, Duration.ofMillis(100))
			.build()) {
			LockRequest request = LockRequest.of("replicated", "reactive-2");
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquire(request).block(Duration.ofSeconds(10)))
				.withMessageContaining("replicated:reactive-2")
				.withMessageContaining("1 of 2 replicas")
				.withMessageContaining("released it");
			assertThat(topology.topology().master().command("EXISTS", template.lockKey(request))).as("released again")
				.isEqualTo(0L);
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * The reactive template writes its holds on a connection of its own, so a
	 * {@code WAIT} on the check's connection covers none of them, even once that
	 * connection is known.
	 */
	@Test
	void shouldRefuseAReactiveLockThatNoReplicaHasOnceTheChecksConnectionIsKnown() {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofMillis(300))
			.build()) {
			template.acquire(LockRequest.of("replicated", "reactive-warm"))
				.flatMap(ReactiveLockHandle::release)
				.block(Duration.ofSeconds(10));
			// Until the replica acknowledged everything written so far, as it does every
			// second.
			await().atMost(Duration.ofSeconds(5)).until(ReplicaAcknowledgementTests::replicaCaughtUp);
			topology.topology().replica().pause();
			try {
				assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> template.acquire(LockRequest.of("replicated", "reactive-paused"))
						.block(Duration.ofSeconds(10)))
					.withMessageContaining("0 of 1 replicas");
			}
			finally {
				topology.topology().replica().resume();
			}
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldRefuseEveryLockOfAMultiLockThatTheReplicasDidNotAcknowledgeOnTheReactiveTemplate() {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.replicaAcknowledgements(2, Duration.ofMillis(100))
			.build()) {
			List<LockRequest> requests = List.of(LockRequest.of("replicated", "reactive-multi-a"),
					LockRequest.of("replicated", "reactive-multi-b"));
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquireAll(requests).block(Duration.ofSeconds(10)))
				.withMessageContaining("1 of 2 replicas");
			for (LockRequest request : requests) {
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(
							() -> assertThat(topology.topology().master().command("EXISTS", template.lockKey(request)))
								.as("released: %s", request)
								.isEqualTo(0L));
			}
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldTellTheListenersNothingOfAReactiveMultiLockTakenInOrderThatTheReplicasRefused() {
		// A multi-lock of one lock is taken lock by lock, as one across Cluster slots.
		List<String> events = new CopyOnWriteArrayList<>();
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.replicaAcknowledgements(2, Duration.ofMillis(100))
			.listener(new LockListener() {

				@Override
				public void acquired(LockContext context) {
					events.add("acquired " + context.name());
				}

				@Override
				public void leaseLost(LockContext context) {
					events.add("lost " + context.name());
				}

				@Override
				public void released(LockContext context, Duration heldFor) {
					events.add("released " + context.name());
				}

			})
			.build()) {
			LockRequest request = LockRequest.builder("replicated")
				.key("reactive-in-order")
				.waitTime(Duration.ofSeconds(1))
				.build();
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquireAll(List.of(request)).block(Duration.ofSeconds(10)))
				.withMessageContaining("1 of 2 replicas");
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(
						() -> assertThat(topology.topology().master().command("EXISTS", template.lockKey(request)))
							.as("released")
							.isEqualTo(0L));
			assertThat(events).as("what the listeners heard").isEmpty();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldKeepTheLocksOfAReactiveMultiLockTakenInOrderThatTheReplicasConfirmed() throws Exception {
		// A multi-lock of one lock is taken lock by lock, as one across Cluster slots.
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build()) {
			LockRequest request = LockRequest.builder("replicated")
				.key("reactive-in-order-kept")
				.waitTime(Duration.ofSeconds(1))
				.build();
			ReactiveLockHandle held = template.acquireAll(List.of(request)).block(Duration.ofSeconds(10));
			// A release sent when the handle was returned has run by now.
			Thread.sleep(200);
			assertThat(topology.topology().master().command("EXISTS", template.lockKey(request)))
				.as("the lock in Redis while its handle is held")
				.isEqualTo(1L);
			held.release().block(Duration.ofSeconds(10));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldCheckTheReplicasOfEveryLockOfAMultiLockOnTheReactiveTemplate() {
		LettuceConnectionFactory factory = (LettuceConnectionFactory) TestRedis.sentinel(topology::topology)
			.connectionFactory();
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build()) {
			List<LockRequest> requests = List.of(LockRequest.of("replicated", "reactive-all-a"),
					LockRequest.of("replicated", "reactive-all-b"));
			ReactiveLockHandle held = template.acquireAll(requests).block(Duration.ofSeconds(10));
			for (LockRequest request : requests) {
				assertThat(topology.topology().replica().command("HGET", template.lockKey(request), "owner"))
					.as("the replica already has %s", request)
					.isNotNull();
			}
			held.release().block(Duration.ofSeconds(10));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldCostOneWaitAndOneClientInfoPerAcquisitionOnceTheConnectionIsKnown() {
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build()) {
			// The first acquisition cannot know the connection carried its write: it
			// writes again and waits.
			template.acquire(LockRequest.of("replicated", "warm")).close();
			var master = topology.topology().master();
			master.command("CONFIG", "RESETSTAT");
			for (int i = 0; i < 20; i++) {
				template.acquire(LockRequest.of("replicated", "steady-" + i)).close();
			}
			String stats = String.valueOf(master.command("INFO", "commandstats"));
			assertThat(calls(stats, "wait")).isEqualTo(20);
			// Redis 7.0 counts subcommands apart (client|info); 6.2 counts them all as
			// client.
			String clientInfo = stats.contains("cmdstat_client|") ? "client|info" : "client";
			assertThat(calls(stats, clientInfo)).isEqualTo(20);
			assertThat(calls(stats, "evalsha") + calls(stats, "fcall")).as("acquire and release only, no second write")
				.isEqualTo(40);
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

	@Test
	void shouldNotShortenAnOuterHoldsLeaseWhenCheckingAReentryOnAFreshConnection() {
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate first = RedisLockTemplate.builder(factory).build();
				RedisLockTemplate fresh = RedisLockTemplate.builder(factory)
					.replicaAcknowledgements(1, Duration.ofSeconds(1))
					.build();
				LockHandle outer = first.acquire(LockRequest.builder("replicated")
					.key("reentered")
					.owner("job-1")
					.lease(Duration.ofSeconds(60))
					.build())) {
			// The fresh template has not seen its connection yet, so it writes the hold
			// again before its WAIT.
			try (LockHandle inner = fresh.acquire(LockRequest.builder("replicated")
				.key("reentered")
				.owner("job-1")
				.lease(Duration.ofSeconds(1))
				.build())) {
				Object ttl = topology.topology().master().command("PTTL", first.lockKey(outer.name()));
				assertThat(Long.parseLong(String.valueOf(ttl))).as("the outer hold's 60 s lease").isGreaterThan(50_000);
			}
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

	/**
	 * A re-entry that the replica check refuses (and releases again) has already
	 * lengthened the lock's lease: the owner stays counted until it ends, so the same
	 * thread's next acquisition is a re-entry, and the late close of the abandoned outer
	 * handle leaves it.
	 */
	@Test
	void shouldKeepANewerHoldWhenAnAbandonedHandleIsClosedAfterARefusedReentry() throws Exception {
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofMillis(300))
			.build()) {
			LockHandle outer = template.acquire(refusedReentry().lease(Duration.ofSeconds(3)).build());
			topology.topology().replica().pause();
			try {
				// A re-entry with a longer lease: acquire.lua counts it and sets the 30 s
				// lease, then the replica check fails and releases the count, leaving the
				// lease.
				assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> template.acquire(refusedReentry().lease(Duration.ofSeconds(30)).build()))
					.withMessageContaining("replicas acknowledged");
			}
			finally {
				topology.topology().replica().resume();
			}
			Object ttl = topology.topology().master().command("PTTL", template.lockKey(outer.name()));
			assertThat(Long.parseLong(String.valueOf(ttl))).as("the refused re-entry's lease").isGreaterThan(20_000);
			// The outer handle is abandoned: its lease (and the bound the registry keeps)
			// ends, while Redis keeps its hold for the refused re-entry's lease.
			Thread.sleep(3500);
			try (LockHandle next = template.acquire(refusedReentry().lease(Duration.ofSeconds(30)).build())) {
				try {
					outer.close();
				}
				catch (LockLeaseLostException ex) {
					// Reporting the abandoned hold as lost is fine; ending the newer hold
					// is not.
				}
				assertThat(next.isHeld()).as("the newer hold survives the late close of the abandoned one").isTrue();
			}
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

	private static LockRequest.Builder refusedReentry() {
		return LockRequest.builder("late-close").key("refused-reentry").waitTime(Duration.ZERO);
	}

	private static long calls(String commandStats, String command) {
		for (String line : commandStats.split("\\r?\\n")) {
			if (line.startsWith("cmdstat_" + command + ":calls=")) {
				String rest = line.substring(("cmdstat_" + command + ":calls=").length());
				return Long.parseLong(rest.substring(0, rest.indexOf(',')));
			}
		}
		return 0;
	}

	/**
	 * Return whether the master's one replica acknowledged its whole replication stream.
	 */
	private static boolean replicaCaughtUp() {
		String info = String.valueOf(topology.topology().master().command("INFO", "replication"));
		Matcher master = Pattern.compile("master_repl_offset:(\\d+)").matcher(info);
		Matcher replica = Pattern.compile("slave0:.*offset=(\\d+)").matcher(info);
		return master.find() && replica.find() && master.group(1).equals(replica.group(1));
	}

}
