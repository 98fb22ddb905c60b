package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Who settles a local hand-over's head (docs/design/waiting-and-hand-off.md, "Hand-off
 * inside one JVM"): the thread that reads a granting reply, or the releaser giving up on
 * it, once, with the grant counted once, whatever moment an interrupt ends the releaser's
 * wait, and also where the factory shares no connection.
 * <p>
 * Its templates chain no waiters ({@code hintConnections(0)}): a chained head is never
 * offered a local hand-over (docs/design/waiting-and-hand-off.md, "The chained hint").
 */
class HandOverSettleTests {

	private static final int ROUNDS = 40;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldGrantOnceWhenTheReleaserIsInterruptedWithoutASharedConnection() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		factory.setShareNativeConnection(false);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).hintConnections(0).build()) {
			String key = template.lockKey(LockName.of("settle", "unshared"));
			LockHandle holder = template.acquire(request("unshared"));
			Future<LockHandle> head = this.connected.executor().submit(() -> template.acquire(request("unshared")));
			awaitOffered(template, 300);
			redis.server().command("CLIENT", "PAUSE", "900", "WRITE");
			AtomicReference<Object> outcome = new AtomicReference<>();
			Thread releaser = new Thread(() -> outcome.set(close(holder)));
			releaser.start();
			Thread.sleep(300);
			releaser.interrupt();
			releaser.join(10_000);
			assertThat(outcome.get()).as("the release, its wait interrupted").isInstanceOf(RuntimeException.class);
			LockHandle handle = head.get(10, TimeUnit.SECONDS);
			assertThat(hashField(key, "holds")).isEqualTo("1");
			assertThat(hashField(key, "token")).isEqualTo(Long.toString(handle.fencingToken()));
			assertThat(template.localGrants()).as("grants whose reply came in time").isZero();
			handle.close();
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
			assertThat(template.heldLocks()).isEmpty();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldHandOverFromAThreadInterruptedBeforeTheRelease() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(LockName.of("settle", "interrupted-before"));
			LockHandle holder = template.acquire(request("interrupted-before"));
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> template.acquire(request("interrupted-before")));
			awaitOffered(template, 300);
			redis.server().command("CLIENT", "PAUSE", "200", "WRITE");
			AtomicReference<Object> outcome = new AtomicReference<>();
			AtomicReference<Boolean> interruptKept = new AtomicReference<>();
			Thread releaser = new Thread(() -> {
				// An interrupt from before the release does not end its wait for the
				// reply.
				Thread.currentThread().interrupt();
				outcome.set(close(holder));
				interruptKept.set(Thread.currentThread().isInterrupted());
			});
			releaser.start();
			releaser.join(10_000);
			assertThat(outcome.get()).isEqualTo("released");
			assertThat(interruptKept.get()).as("the releaser's interrupt").isTrue();
			LockHandle handle = head.get(10, TimeUnit.SECONDS);
			assertThat(hashField(key, "granted")).isEqualTo(Long.toString(handle.fencingToken()));
			assertThat(template.localGrants()).as("granted by the release").isEqualTo(1);
			handle.close();
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		}
	}

	@Test
	void shouldCountEachGrantOnceWhateverMomentTheReleaserIsInterrupted() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			Rounds rounds = new Rounds(template, "interrupts");
			SplittableRandom random = new SplittableRandom(20261124L);
			for (int round = 0; round < ROUNDS; round++) {
				// Half the time the interrupt comes while the releaser waits for the
				// reply.
				long pauseMillis = random.nextBoolean() ? 5 + random.nextInt(20) : 0;
				rounds.run(round, pauseMillis, random.nextLong(TimeUnit.MILLISECONDS.toNanos(25)));
			}
			rounds.check();
		}
	}

	@Test
	void shouldCountEachGrantOnceWhenTheHandOverFallsBackToEvalAsTheReleaserIsInterrupted() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			Rounds rounds = new Rounds(template, "noscript");
			rounds.flushScripts = true;
			SplittableRandom random = new SplittableRandom(20261126L);
			for (int round = 0; round < ROUNDS; round++) {
				// The hand-over's NOSCRIPT reply comes after the pause, maybe after the
				// releaser gave up: its EVAL is sent from the thread that reads it.
				long pauseMillis = random.nextBoolean() ? 5 + random.nextInt(20) : 0;
				rounds.run(round, pauseMillis, random.nextLong(TimeUnit.MILLISECONDS.toNanos(25)));
			}
			rounds.check();
		}
	}

	@Test
	void shouldCountEachGrantOnceWhenTheReplyComesAsTheReleaserTimesOut() throws Exception {
		long timeoutMillis = 150;
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server().host(), redis.server().port(),
				Duration.ofMillis(timeoutMillis));
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).hintConnections(0).build()) {
			Rounds rounds = new Rounds(template, "timeouts");
			SplittableRandom random = new SplittableRandom(20261125L);
			for (int round = 0; round < ROUNDS; round++) {
				// Redis ends a pause on its next tick (up to 100 ms late at hz 10): the
				// reply comes before, at or after the command timeout, and the head's own
				// attempt after a timeout waits less than one.
				rounds.run(round, timeoutMillis - 120 + random.nextInt(100), -1);
			}
			rounds.check();
		}
		finally {
			factory.destroy();
		}
	}

	private static Object close(LockHandle holder) {
		try {
			holder.close();
			return "released";
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	private static void awaitOffered(RedisLockTemplate template, long settleMillis) throws InterruptedException {
		await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
		Thread.sleep(settleMillis);
	}

	private static String hashField(String key, String field) {
		return String.valueOf(redis.server().command("HGET", key, field));
	}

	private static LockRequest request(String key) {
		return LockRequest.builder("settle")
			.key(key)
			.lease(Duration.ofSeconds(10))
			.waitTime(Duration.ofSeconds(20))
			.build();
	}

	/**
	 * Rounds of one lock: a holder, a head offering itself to its release, and the
	 * release, maybe paused by Redis and interrupted. After each, the head holds the lock
	 * once, with a new token, and the template counted exactly the grants whose release
	 * returned.
	 */
	private final class Rounds {

		private final RedisLockTemplate template;

		private final String name;

		private final String key;

		private long granted;

		private long failedReleases;

		private long lastToken;

		// Whether Redis forgets its scripts before each release.
		boolean flushScripts;

		Rounds(RedisLockTemplate template, String name) {
			this.template = template;
			this.name = name;
			this.key = template.lockKey(LockName.of("settle", name));
		}

		/**
		 * @param interruptAfterNanos when to interrupt the releaser, or negative for
		 * never
		 */
		void run(int round, long pauseMillis, long interruptAfterNanos) throws Exception {
			LockHandle holder = this.template.acquire(request(this.name));
			Future<LockHandle> head = HandOverSettleTests.this.connected.executor()
				.submit(() -> this.template.acquire(request(this.name)));
			awaitOffered(this.template, 60);
			if (this.flushScripts) {
				redis.server().command("SCRIPT", "FLUSH");
			}
			if (pauseMillis > 0) {
				redis.server().command("CLIENT", "PAUSE", Long.toString(pauseMillis), "WRITE");
			}
			AtomicReference<Object> outcome = new AtomicReference<>();
			AtomicReference<Boolean> interruptKept = new AtomicReference<>();
			Thread releaser = new Thread(() -> {
				outcome.set(close(holder));
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(40));
				interruptKept.set(Thread.currentThread().isInterrupted());
			});
			releaser.start();
			if (interruptAfterNanos >= 0) {
				LockSupport.parkNanos(interruptAfterNanos);
				releaser.interrupt();
			}
			releaser.join(10_000);
			assertThat(interruptKept.get()).as("round %d: the releaser's interrupt", round)
				.isEqualTo(interruptAfterNanos >= 0);
			LockHandle handle = head.get(10, TimeUnit.SECONDS);
			assertThat(handle.fencingToken()).as("round %d: a new token", round).isGreaterThan(this.lastToken);
			this.lastToken = handle.fencingToken();
			assertThat(hashField(this.key, "holds")).as("round %d: one hold", round).isEqualTo("1");
			if (outcome.get() instanceof RuntimeException) {
				this.failedReleases++;
			}
			else if (hashField(this.key, "granted").equals(Long.toString(handle.fencingToken()))) {
				// Released without error by a hand-over that granted the head.
				this.granted++;
			}
			assertThat(this.template.localGrants()).as("round %d: grants counted", round).isEqualTo(this.granted);
			HandOverSettleTests.this.connected.executor().submit(handle::close).get(10, TimeUnit.SECONDS);
			assertThat(redis.server().command("EXISTS", this.key)).as("round %d: nothing left", round).isEqualTo(0L);
		}

		void check() {
			System.out.printf("settle (%s): %d rounds, %d granted with a reply, %d releases failed%n", this.name,
					ROUNDS, this.granted, this.failedReleases);
			assertThat(this.template.heldLocks()).isEmpty();
			assertThat(this.granted).as("hand-overs granted with a reply").isPositive();
			assertThat(this.failedReleases).as("releases that gave up on the reply").isPositive();
		}

	}

}
