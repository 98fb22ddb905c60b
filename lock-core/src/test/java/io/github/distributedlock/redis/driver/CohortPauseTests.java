package io.github.distributedlock.redis.driver;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisConnections;
import io.github.distributedlock.redis.blocking.BlockingPort;
import io.github.distributedlock.redis.blocking.LockCommands;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.test.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The releasing thread paused at the hand-over of a pass (docs/design/cohorting.md, rule
 * 4), on a real redis-server. The driver runs as a template runs it, on a port to the
 * server; the port pauses the releasing thread at the clock reading the hand-over makes,
 * either before it (the hand-over then reads the time after the pause) or after it (the
 * hand-over goes on with a reading the pause made stale). Pauses end just below and just
 * above the cohort's time limit, and past the releasing hold's lease, while a caller of
 * another JVM (lines of their own) waits for the lock through Redis.
 */
class CohortPauseTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	// The least a cohort opens under: Cohort.LEASE_PER_TIME_LIMIT times its time limit.
	private static final long LEASE_MS = 1_800;

	// Long enough that a loaded machine opens the cohort and reaches the hand-over
	// within it: the pause below must end before the limit, or it tests nothing.
	private static final long TIME_LIMIT_MS = 600;

	private LettuceConnectionFactory factory;

	private RedisMessageListenerContainer container;

	private BlockingPort real;

	private RedisMessageListenerContainer remoteContainer;

	private BlockingPort remote;

	private PausingPort pausing;

	private LocalLines lines;

	private DriverCommands commands;

	private LocalLines remoteLines;

	private DriverCommands remoteCommands;

	private LockSpec spec;

	@BeforeEach
	void connect() {
		this.factory = RedisConnections.standalone(redis.server());
		this.container = container(this.factory);
		this.real = new BlockingPort(new LockCommands(new StringRedisTemplate(this.factory)), this.container,
				"cohort-pause-test");
		// Another JVM's: its own container too.
		this.remoteContainer = container(this.factory);
		this.remote = new BlockingPort(new LockCommands(new StringRedisTemplate(this.factory)), this.remoteContainer,
				"cohort-pause-test-remote");
		this.pausing = new PausingPort(this.real);
		this.lines = new LocalLines(this.real, 0,
				new Cohorts(CohortLimits.of(16, Duration.ofMillis(TIME_LIMIT_MS)), (n) -> "pause-test:cohort:" + n));
		this.commands = new DriverCommands(this.pausing, LockKeys.FENCE_IDLE_MILLIS, true, new NoAttemptWatch());
		this.remoteLines = TestLines.of(this.remote, 0);
		this.remoteCommands = new DriverCommands(this.remote, LockKeys.FENCE_IDLE_MILLIS, true, new NoAttemptWatch());
		LockRequestResolver resolver = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("pause", 0), false,
				true, new RedisServerFeatures(null, false, false), 5_000);
		this.spec = resolver.resolve(LockRequest.builder("pause")
			.key("k")
			.lease(Duration.ofMillis(LEASE_MS))
			.autoRenew(false)
			.waitTime(Duration.ofSeconds(10))
			.build());
	}

	private static RedisMessageListenerContainer container(LettuceConnectionFactory factory) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(factory);
		container.afterPropertiesSet();
		container.start();
		return container;
	}

	@AfterEach
	void disconnect() throws Exception {
		this.real.close();
		this.remote.close();
		for (RedisMessageListenerContainer each : List.of(this.container, this.remoteContainer)) {
			each.stop();
			each.destroy();
		}
		this.factory.destroy();
		redis.server().flushAll();
	}

	/**
	 * A pause that ends below the time limit (150 ms, a margin for a loaded machine): the
	 * hand-over reads the time after it, and C takes the hold in memory, with the block's
	 * next token and B's lease end.
	 */
	@Test
	void aPauseEndingJustBelowTheTimeLimitStillPasses() throws Exception {
		Cohort opened = openCohort();
		this.pausing.pauseNextRead(Thread.currentThread(), opened.b.grant().sentNanos() + (TIME_LIMIT_MS - 150) * MS,
				false);
		release(opened.b);
		Grant passed = opened.c.get(5, TimeUnit.SECONDS);
		assertThat(this.pausing.paused()).as("the hand-over's clock reading, paused").isTrue();
		assertThat(passed.owner()).as("C's Redis owner").isEqualTo(opened.b.grant().owner());
		assertThat(passed.token()).as("C's Redis token").isEqualTo(opened.b.grant().token());
		assertThat(passed.shownToken()).as("C's token").isEqualTo(opened.b.grant().token() + 1);
		assertThat(passed.sentNanos()).as("C's lease counted from B's send").isEqualTo(opened.b.grant().sentNanos());
		release(hold(passed));
		assertThat(redis.server().command("EXISTS", this.spec.lockKey())).as("the lock, after C's release")
			.isEqualTo(0L);
	}

	/**
	 * A pause that ends just past the time limit: the hand-over reads the time after it
	 * and refuses; B's release goes to Redis, and C takes the lock from Redis under its
	 * own owner, with a larger token.
	 */
	@Test
	void aPauseEndingJustPastTheTimeLimitPassesNothing() throws Exception {
		Cohort opened = openCohort();
		this.pausing.pauseNextRead(Thread.currentThread(), opened.b.grant().sentNanos() + (TIME_LIMIT_MS + 20) * MS,
				false);
		long released = release(opened.b);
		Grant taken = opened.c.get(5, TimeUnit.SECONDS);
		assertThat(this.pausing.paused()).as("the hand-over's clock reading, paused").isTrue();
		assertThat(released).as("B's release, sent to Redis: the holds left").isZero();
		assertThat(taken.owner()).as("C's Redis owner").isNotEqualTo(opened.b.grant().owner());
		assertThat(taken.token()).as("C's Redis token").isEqualTo(taken.shownToken());
		assertThat(taken.token()).as("C's token").isGreaterThan(opened.b.grant().token() + 15);
		release(hold(taken));
	}

	/**
	 * A pause after the hand-over read the time, ending past B's lease: a caller of
	 * another JVM takes the lock from Redis meanwhile. No check can see a pause after its
	 * reading, so C takes the pass; but C's deadline is B's lease end, so C's hold is
	 * over before the stranger's attempt was sent, and the stranger's token is above C's.
	 */
	@Test
	void aPauseAfterTheReadingPastTheLeaseOverlapsNoHoldByItsDeadline() throws Exception {
		Cohort opened = openCohort();
		CompletableFuture<Grant> stranger = acquire(this.remoteLines, this.remoteCommands, "stranger");
		long leaseEnd = opened.b.grant().sentNanos() + LEASE_MS * MS;
		this.pausing.pauseNextRead(Thread.currentThread(), leaseEnd + 300 * MS, true);
		CompletableFuture<Long> released = new CompletableFuture<>();
		opened.b.release(this.real, Completion.of(released::complete, released::completeExceptionally));
		Grant strangers = stranger.get(5, TimeUnit.SECONDS);
		assertThat(this.pausing.paused()).as("the hand-over's clock reading, paused").isTrue();
		Grant c = opened.c.get(5, TimeUnit.SECONDS);
		assertThat(c.owner()).as("C's Redis owner: the stale reading let the pass through")
			.isEqualTo(opened.b.grant().owner());
		long cDeadline = c.sentNanos() + LEASE_MS * MS;
		assertThat(cDeadline).as("C's deadline, B's lease end").isEqualTo(leaseEnd);
		assertThat(cDeadline).as("C's deadline, no later than the stranger's send")
			.isLessThanOrEqualTo(strangers.sentNanos());
		assertThat(hold(c).isLive(this.real.nanoTime())).as("C's passed hold, live").isFalse();
		assertThat(strangers.shownToken()).as("the stranger's token, above C's").isGreaterThan(c.shownToken());
		assertThat(released.get(5, TimeUnit.SECONDS)).as("B's release: the hold passed on").isZero();
		release(hold(strangers));
	}

	/**
	 * Open a cohort as {@code CohortTemplateTests} does: A heads the line alone; B,
	 * promoted with C behind it, wins a block and holds; C sleeps under the cohort.
	 */
	private Cohort openCohort() throws Exception {
		LockHold first = hold(acquire(this.lines, this.commands, "owner-0").get(5, TimeUnit.SECONDS));
		CompletableFuture<Grant> a = acquire(this.lines, this.commands, "owner-a");
		awaitSubscribed();
		CompletableFuture<Grant> b = acquire(this.lines, this.commands, "owner-b");
		CompletableFuture<Grant> c = acquire(this.lines, this.commands, "owner-c");
		// Each has sent its first attempt, and waits.
		Thread.sleep(50);
		release(first);
		LockHold aHold = hold(a.get(5, TimeUnit.SECONDS));
		assertThat(aHold.grant().cohort()).as("A's cohort").isNull();
		release(aHold);
		LockHold bHold = hold(b.get(5, TimeUnit.SECONDS));
		assertThat(bHold.grant().cohort()).as("B's cohort").isNotNull();
		assertThat(c).as("C, asleep under the cohort").isNotDone();
		return new Cohort(bHold, c);
	}

	private void awaitSubscribed() throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		LocalLine line = this.lines.hot(this.spec);
		while ((line == null || !line.isSubscribed()) && System.nanoTime() - end < 0) {
			Thread.sleep(5);
			line = this.lines.hot(this.spec);
		}
		assertThat(line).as("the line").isNotNull();
		assertThat(line.isSubscribed()).as("the line, subscribed").isTrue();
	}

	private CompletableFuture<Grant> acquire(LocalLines in, DriverCommands with, String owner) {
		CompletableFuture<Grant> granted = new CompletableFuture<>();
		new SingleAcquisition(this.spec, owner, false, true, with, in,
				Completion.of(granted::complete, granted::completeExceptionally))
			.start();
		return granted;
	}

	private LockHold hold(Grant grant) {
		return new LockHold(grant, grant.sentNanos(), true, new NoHoldEvents(), this.lines);
	}

	private long release(LockHold hold) throws Exception {
		CompletableFuture<Long> done = new CompletableFuture<>();
		hold.release(this.real, Completion.of(done::complete, done::completeExceptionally));
		return done.get(5, TimeUnit.SECONDS);
	}

	private record Cohort(LockHold b, CompletableFuture<Grant> c) {
	}

	/**
	 * The port to the server, whose clock, read once on a given thread, pauses that
	 * thread until a given instant: returning the time after the pause, or the time
	 * before it.
	 */
	private static final class PausingPort extends ForwardingPort {

		private final AtomicReference<Thread> thread = new AtomicReference<>();

		private volatile long untilNanos;

		private volatile boolean stale;

		private volatile boolean paused;

		PausingPort(LockPort port) {
			super(port);
		}

		void pauseNextRead(Thread on, long until, boolean readBefore) {
			this.untilNanos = until;
			this.stale = readBefore;
			this.thread.set(on);
		}

		boolean paused() {
			return this.paused;
		}

		@Override
		public long nanoTime() {
			long now = delegate().nanoTime();
			Thread current = Thread.currentThread();
			if (!this.thread.compareAndSet(current, null)) {
				return now;
			}
			this.paused = true;
			while (this.untilNanos - delegate().nanoTime() > 0) {
				LockSupport.parkNanos(this.untilNanos - delegate().nanoTime());
			}
			return this.stale ? now : delegate().nanoTime();
		}

		@Override
		public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
			delegate().run(name, operation, call, reply);
		}

	}

}
