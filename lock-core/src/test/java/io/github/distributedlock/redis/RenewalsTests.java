package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.blocking.BlockingPort;
import io.github.distributedlock.redis.blocking.LockCommands;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.driver.NoHoldEvents;
import io.github.distributedlock.redis.driver.Renewals;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.test.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog ({@link Renewals}) against a real redis-server, where the template's own
 * tests don't reach.
 */
class RenewalsTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	/**
	 * Whether Redis is a Cluster is asked when a batch is first renewed, and may fail (a
	 * connection refused then): the due holds are renewed again, as after a renewal
	 * without a reply. Before, they stayed marked as being renewed, and were neither
	 * renewed again nor reported lost while their lease ended in Redis.
	 */
	@Test
	void shouldRenewAgainAfterTheClusterQuestionFailed() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		AtomicInteger asked = new AtomicInteger();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			RedisLockHandle held = (RedisLockHandle) template.acquire(
					LockRequest.builder("renewals").key("a").lease(Duration.ofMillis(900)).autoRenew(false).build());
			LockHold hold = held.hold();
			BlockingPort port = new BlockingPort(new LockCommands(new StringRedisTemplate(factory)), null,
					"renewals-test");
			try (Renewals renewals = new Renewals(port, () -> {
				if (asked.getAndIncrement() == 0) {
					throw new IllegalStateException("no connection to ask whether Redis is a Cluster");
				}
				return false;
			})) {
				renewals.watch(hold);
				Thread.sleep(2_000);
				assertThat(asked.get()).as("times the cluster question was asked").isGreaterThan(1);
				assertThat(hold.isLost()).isFalse();
				assertThat((Long) redis.server().command("PTTL", template.lockKey(LockName.of("renewals", "a"))))
					.as("ms the lock lives in Redis, 2 s into a 900 ms lease")
					.isPositive();
			}
			finally {
				port.close();
			}
			held.close();
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A renewal that could not be sent because the Cluster question failed is not
	 * reported to the hold's events as a command without a reply: nothing is in flight
	 * that Redis may still run. Before, the events heard {@code failed} with no
	 * {@code sending} before it, and the owner's holds were kept as if a lease might be
	 * set that nothing bounds.
	 */
	@Test
	void shouldReportNoFailedCommandWhenTheClusterQuestionFailed() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		AtomicInteger asked = new AtomicInteger();
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger unsent = new AtomicInteger();
		AtomicInteger renewed = new AtomicInteger();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			RedisLockHandle held = (RedisLockHandle) template.acquire(
					LockRequest.builder("renewals").key("b").lease(Duration.ofMillis(900)).autoRenew(false).build());
			LockHold hold = new LockHold(held.hold().grant(), System.nanoTime(), true, new NoHoldEvents() {

				@Override
				public void sending(LockHold renewing) {
					inFlight.incrementAndGet();
				}

				@Override
				public void replied(LockHold renewing, long leaseMillis) {
					inFlight.decrementAndGet();
					renewed.incrementAndGet();
				}

				@Override
				public void failed(LockHold renewing) {
					if (inFlight.decrementAndGet() < 0) {
						unsent.incrementAndGet();
						inFlight.incrementAndGet();
					}
				}

			}, null);
			BlockingPort port = new BlockingPort(new LockCommands(new StringRedisTemplate(factory)), null,
					"renewals-test");
			try (Renewals renewals = new Renewals(port, () -> {
				if (asked.getAndIncrement() == 0) {
					throw new IllegalStateException("no connection to ask whether Redis is a Cluster");
				}
				return false;
			})) {
				renewals.watch(hold);
				Thread.sleep(1_000);
				assertThat(asked.get()).as("times the cluster question was asked").isGreaterThan(1);
				assertThat(renewed.get()).as("renewals answered").isPositive();
				assertThat(unsent.get()).as("failures reported for renewals never sent").isZero();
			}
			finally {
				port.close();
			}
			held.close();
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A port that throws instead of answering (none of the engine's does today) makes the
	 * renewal a failed one, tried again. Before, the throw left the holds marked as being
	 * renewed: never renewed again, nor reported lost, while the lease ended in Redis.
	 */
	@Test
	void shouldRenewAgainAfterThePortThrew() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		AtomicInteger runs = new AtomicInteger();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			RedisLockHandle held = (RedisLockHandle) template.acquire(
					LockRequest.builder("renewals").key("c").lease(Duration.ofMillis(900)).autoRenew(false).build());
			LockHold hold = held.hold();
			BlockingPort port = new BlockingPort(new LockCommands(new StringRedisTemplate(factory)), null,
					"renewals-test");
			LockPort throwing = new LockPort() {

				@Override
				public long nanoTime() {
					return port.nanoTime();
				}

				@Override
				public UniqueIds ids() {
					return port.ids();
				}

				@Override
				public Cancellable schedule(Runnable task, long delayNanos) {
					return port.schedule(task, delayNanos);
				}

				@Override
				public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
					if (runs.getAndIncrement() == 0) {
						throw new IllegalStateException("the port refused the renewal");
					}
					port.run(name, operation, call, reply);
				}

				@Override
				public Cancellable listen(List<String> channels, Listener listener) {
					return port.listen(channels, listener);
				}

			};
			try (Renewals renewals = new Renewals(throwing, () -> false)) {
				renewals.watch(hold);
				Thread.sleep(2_000);
				assertThat(runs.get()).as("renewals the port was asked to run").isGreaterThan(1);
				assertThat(hold.isLost()).isFalse();
				assertThat((Long) redis.server().command("PTTL", template.lockKey(LockName.of("renewals", "c"))))
					.as("ms the lock lives in Redis, 2 s into a 900 ms lease")
					.isPositive();
			}
			finally {
				port.close();
			}
			held.close();
		}
		finally {
			factory.destroy();
		}
	}

}
