package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How long a waiter waits whose wait ends while a release of its own JVM is granting it
 * the lock and Redis stalls (docs/guarantees.md, "Failures"): it waits for the release's
 * hand-over, up to one command timeout, then sends its own attempt, up to another, so at
 * most its wait time plus two command timeouts. Redis is frozen (SIGSTOP) just before the
 * release, for just below, at, just above and twice the command timeout, and the waiter's
 * wait ends early or late in the hand-over.
 * <p>
 * Its templates chain no waiters ({@code hintConnections(0)}): a chained head is never
 * offered a local hand-over (docs/design/waiting-and-hand-off.md, "The chained hint").
 */
class StalledHandOverBoundTests {

	private static final long TIMEOUT_MILLIS = 500;

	private static final long WAIT_MILLIS = 1500;

	private static final long LEASE_MILLIS = 2500;

	// The scheduling slack of the bound: on two shared cores, the waiter's thread is
	// woken twice (by the releaser's settlement, and by its own attempt's timeout), and
	// the releaser's timeout and the SIGSTOP and SIGCONT (each a short-lived process)
	// are scheduled late by up to tens of milliseconds each under load.
	private static final long SLACK_MILLIS = 300;

	// How early an event may be measured, as the clock readings here and in the engine
	// are not taken at the same moment.
	private static final long EARLY_MILLIS = 60;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@AfterEach
	void thaw() {
		ManagedRedisServer server = redis.managedServer();
		if (server.isRunning()) {
			server.resume();
		}
	}

	@ParameterizedTest(name = "wait ends {0} ms into the hand-over, Redis stalls {1} ms")
	@CsvSource({ "100, 350", "100, 500", "100, 650", "100, 1300", "250, 350", "250, 500", "250, 650", "250, 1300" })
	void shouldReturnWithinTheWaitTimePlusTwoCommandTimeouts(long intoMillis, long stallMillis) throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server().host(), redis.server().port(),
				Duration.ofMillis(TIMEOUT_MILLIS));
		String name = "stall-" + intoMillis + "-" + stallMillis;
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).hintConnections(0).build()) {
			String key = template.lockKey(LockName.of("bound", name));
			warmUp(template, name);
			long grantsBefore = template.localGrants();
			LockHandle holder = template.acquire(request(name, 0, 10_000));
			AtomicLong waiterStart = new AtomicLong();
			AtomicLong waiterEnd = new AtomicLong();
			AtomicReference<Object> result = new AtomicReference<>();
			CountDownLatch returned = new CountDownLatch(1);
			CountDownLatch released = new CountDownLatch(1);
			Future<?> waiter = this.connected.executor().submit(() -> {
				waiterStart.set(System.nanoTime());
				Object outcome;
				try {
					Optional<LockHandle> handle = template.tryAcquire(request(name, WAIT_MILLIS, LEASE_MILLIS));
					outcome = handle.isPresent() ? handle.get() : "timed out";
				}
				catch (RuntimeException ex) {
					outcome = ex;
				}
				waiterEnd.set(System.nanoTime());
				result.set(outcome);
				returned.countDown();
				if (outcome instanceof LockHandle handle) {
					// Released by its own thread, once the state is checked.
					released.await(10, TimeUnit.SECONDS);
					handle.close();
				}
				return null;
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
			long deadline = waiterStart.get() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
			long stallAt = deadline - TimeUnit.MILLISECONDS.toNanos(intoMillis);
			assertThat(stallAt - System.nanoTime()).as("time for the waiter to offer itself")
				.isGreaterThan(TimeUnit.MILLISECONDS.toNanos(500));
			LockSupport.parkNanos(stallAt - System.nanoTime());
			ManagedRedisServer server = redis.managedServer();
			server.pause();
			long stalled = System.nanoTime();
			Thread thaw = new Thread(() -> {
				LockSupport.parkNanos(stalled + TimeUnit.MILLISECONDS.toNanos(stallMillis) - System.nanoTime());
				server.resume();
			});
			thaw.start();
			RuntimeException releaseFailure = null;
			try {
				holder.close();
			}
			catch (RuntimeException ex) {
				releaseFailure = ex;
			}
			long releaseEnd = System.nanoTime();
			assertThat(returned.await(10, TimeUnit.SECONDS)).as("the waiter returned").isTrue();
			Object outcome = result.get();
			thaw.join(10_000);
			long waited = millis(waiterEnd.get() - waiterStart.get());
			long afterStall = millis(waiterEnd.get() - stalled);
			System.out.printf(
					"stalled hand-over (into %d ms, stall %d ms): waited %d ms (%d ms after the stall began),"
							+ " release %s after %d ms, outcome %s%n",
					intoMillis, stallMillis, waited, afterStall, (releaseFailure != null) ? "failed" : "returned",
					millis(releaseEnd - stalled), describe(outcome));

			// The waiter's wait ended while the release waited for the hand-over's reply.
			assertThat(millis(deadline - stalled)).as("wait end after the release began")
				.isGreaterThanOrEqualTo(intoMillis - EARLY_MILLIS);
			assertThat(millis(releaseEnd - deadline)).as("release end after the wait end").isPositive();
			// The bound (docs/guarantees.md): wait time plus two command timeouts.
			assertThat(waited).as("time in tryAcquire")
				.isLessThanOrEqualTo(WAIT_MILLIS + 2 * TIMEOUT_MILLIS + SLACK_MILLIS);
			// It waited past its wait time, for the hand-over's settlement.
			assertThat(waited).as("time in tryAcquire").isGreaterThanOrEqualTo(WAIT_MILLIS);
			if (stallMillis < TIMEOUT_MILLIS) {
				// The hand-over's reply came in time and granted the waiter, after its
				// wait ended.
				assertThat(releaseFailure).as("the release").isNull();
				assertThat(template.localGrants()).as("grants with a reply").isEqualTo(grantsBefore + 1);
				assertThat(afterStall).isGreaterThanOrEqualTo(stallMillis - EARLY_MILLIS);
				assertThat(outcome).isInstanceOf(LockHandle.class);
			}
			else if (stallMillis > TIMEOUT_MILLIS) {
				// The release gave up on the hand-over after one command timeout; the
				// waiter's own attempt (same hold id) waited for Redis to come back.
				assertThat(releaseFailure).as("the release").isInstanceOf(LockAccessException.class);
				assertThat(template.localGrants()).as("grants with a reply").isEqualTo(grantsBefore);
				assertThat(millis(releaseEnd - stalled)).as("the release's wait")
					.isGreaterThanOrEqualTo(TIMEOUT_MILLIS - EARLY_MILLIS);
			}
			if (stallMillis > TIMEOUT_MILLIS && stallMillis < 2 * TIMEOUT_MILLIS) {
				// Found the hand-over's grant once Redis came back: more than one
				// command timeout past its wait time when the wait ended early in the
				// hand-over.
				assertThat(outcome).isInstanceOf(LockHandle.class);
				assertThat(afterStall).isGreaterThanOrEqualTo(stallMillis - EARLY_MILLIS);
			}
			if (stallMillis >= 2 * TIMEOUT_MILLIS + SLACK_MILLIS) {
				// Its own attempt timed out too: two command timeouts after the
				// hand-over was sent, the documented bound reached.
				assertThat(outcome).isInstanceOf(LockAccessException.class);
				assertThat(afterStall).isGreaterThanOrEqualTo(2 * TIMEOUT_MILLIS - EARLY_MILLIS);
			}
			if (outcome instanceof LockHandle handle) {
				// Redis holds exactly the hold the waiter knows, which it can release.
				assertThat(hashField(key, "token")).isEqualTo(Long.toString(handle.fencingToken()));
				assertThat(hashField(key, "granted")).as("granted by the hand-over")
					.isEqualTo(Long.toString(handle.fencingToken()));
				assertThat(hashField(key, "holds")).isEqualTo("1");
				released.countDown();
				waiter.get(10, TimeUnit.SECONDS);
				assertThat(server.command("EXISTS", key)).as("released").isEqualTo(0L);
			}
			else {
				// Neither reply reached the waiter: the hand-over ran once Redis came
				// back and its grant, unknown to the waiter (docs/guarantees.md, an
				// acquire whose reply never reaches its caller), lasts no longer than its
				// lease.
				assertThat(outcome).isInstanceOf(LockAccessException.class);
				await().atMost(Duration.ofMillis(LEASE_MILLIS + 1000))
					.until(() -> Long.valueOf(0).equals(server.command("EXISTS", key)));
			}
			assertThat(template.heldLocks()).isEmpty();
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * One hand-over without a stall, so that Redis has the scripts: the stalled one then
	 * costs one command, not a NOSCRIPT and an EVAL.
	 */
	private void warmUp(RedisLockTemplate template, String name) throws Exception {
		LockHandle holder = template.acquire(request(name, 0, 10_000));
		Future<?> head = this.connected.executor().submit(() -> {
			template.acquire(request(name, 10_000, 10_000)).close();
			return null;
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
		Thread.sleep(300);
		holder.close();
		head.get(10, TimeUnit.SECONDS);
		assertThat(template.localGrants()).as("warm-up grants").isEqualTo(1);
	}

	private static String describe(@Nullable Object outcome) {
		return (outcome instanceof LockHandle handle) ? "held, token " + handle.fencingToken()
				: String.valueOf(outcome);
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private static String hashField(String key, String field) {
		return String.valueOf(redis.server().command("HGET", key, field));
	}

	private static LockRequest request(String key, long waitMillis, long leaseMillis) {
		return LockRequest.builder("bound")
			.key(key)
			.lease(Duration.ofMillis(leaseMillis))
			.waitTime(Duration.ofMillis(waitMillis))
			.build();
	}

}
