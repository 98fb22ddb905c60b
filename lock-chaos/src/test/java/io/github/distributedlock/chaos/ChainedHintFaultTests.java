package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RespConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The four liveness faults of the chained hints (issue 48), each on a real redis-server:
 * waiters that waited in {@code BLPOP} pairs on connections of their own, with the
 * attempt queued behind the {@code BLPOP}. The engine no longer chains; these tests keep
 * what the faults broke: a call ends within its wait time and one command timeout, a
 * stall shorter than the command timeout fails nobody, an attempt whose call failed does
 * not keep the lock, and a waiter that is cut off costs the next one a claim, not a
 * lease. Every template stands for a process of its own, with its own connections.
 */
class ChainedHintFaultTests {

	private static final String SCOPE = "chained";

	/**
	 * How long a reservation waits for its waiter ({@code HandOffRequest.CLAIM_MILLIS}).
	 */
	private static final Duration CLAIM = Duration.ofSeconds(2);

	/**
	 * The lease of the waiters' holds: a hold nobody releases shows as a lock taken this
	 * long.
	 */
	private static final Duration LEASE = Duration.ofSeconds(10);

	/**
	 * What a bound on a call's duration allows beyond it: a thread's start and wake-up on
	 * a busy machine.
	 */
	private static final Duration MARGIN = Duration.ofMillis(300);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated("--enable-debug-command", "yes");

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	@AfterEach
	void disconnect() {
		redis.server().command("CLIENT", "UNPAUSE");
		redis.server().command("CONFIG", "SET", "hz", "10");
		for (RedisLockTemplate template : this.templates) {
			template.close();
		}
		for (LettuceConnectionFactory factory : this.factories) {
			factory.destroy();
		}
		redis.server().flushAll();
	}

	/**
	 * Fault 1 (high): a waiter that became first in line opened its hint connection on
	 * its own thread, so a Redis stall at that moment cost it one more command timeout
	 * before its attempt, which then waited its own: 2.9 to 3.8 s against a 2.5 s bound.
	 * Here the head of the line fails on a stalled Redis, which makes the other waiter
	 * first in line 200 ms before its wait time ends; the call must end, however it ends,
	 * within its wait time and one command timeout.
	 */
	@Test
	void shouldEndWithinWaitTimeAndCommandTimeoutWhenRedisStallsAsTheWaiterBecomesFirstInLine() throws Exception {
		Duration commandTimeout = Duration.ofSeconds(1);
		RedisLockTemplate waiters = template(redis.server().port(), commandTimeout);
		String key = waiters.lockKey(LockName.of(SCOPE, "first-in-line"));
		// Another process's hold, which ends in 1.5 s.
		long holdEnds = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
		redis.server().command("HSET", key, "owner", "other", "holds", "1", "token", "1");
		redis.server().command("PEXPIRE", key, "1500");
		// The head sleeps until the hold ends, then attempts into the stall. Its lease is
		// too short for a chained wait (400 ms), so it holds no hint connection.
		CompletableFuture<Ending> head = acquireInThread(waiters,
				request("first-in-line").lease(Duration.ofMillis(300)).waitTime(Duration.ofSeconds(10)).build(),
				Duration.ZERO);
		awaitRequests(key, 1);
		// Behind it in the local line until it fails, one command timeout after the hold
		// ends: 200 ms before this wait time is over.
		Duration waitTime = Duration.ofNanos(holdEnds - System.nanoTime())
			.plus(commandTimeout)
			.plus(Duration.ofMillis(200));
		CompletableFuture<Ending> second = acquireInThread(waiters,
				request("first-in-line").lease(LEASE).waitTime(waitTime).build(), Duration.ZERO);
		sleepUntil(holdEnds - TimeUnit.MILLISECONDS.toNanos(100));
		long paused = System.nanoTime();
		redis.server().command("CLIENT", "PAUSE", "4000", "ALL");
		Ending ended = second.get(20, TimeUnit.SECONDS);
		assertThat(ended.millis())
			.as("the call of the waiter that became first in line during the stall, which ended with %s",
					ended.outcome())
			.isLessThanOrEqualTo(waitTime.plus(commandTimeout).plus(MARGIN).toMillis());
		head.get(20, TimeUnit.SECONDS);
		sleepUntil(paused + TimeUnit.MILLISECONDS.toNanos(4100));
	}

	/**
	 * Fault 2 (medium): chained waiters failed on stalls that waiters on pub/sub survive,
	 * because their attempt was timed from the write of the {@code BLPOP} before it and
	 * got about half the command timeout: a 300 ms stall failed them with a 400 ms
	 * command timeout. Here waiters of several processes wait behind a holder, and Redis
	 * stalls for 300 ms right at the release, three times: every waiter must get the lock
	 * (or time out), never fail. Their command timeout is 600 ms: at half of it, a 300 ms
	 * stall still fails such waiters, and 300 ms are left for a busy machine to deliver
	 * the replies (with 100 ms, a run beside other test JVMs failed a waiter).
	 */
	@Test
	void shouldKeepEveryWaiterThroughAStallShorterThanTheCommandTimeoutAtTheRelease() throws Exception {
		Duration commandTimeout = Duration.ofMillis(600);
		RedisLockTemplate holder = template(redis.server().port(), Connections.COMMAND_TIMEOUT);
		List<RedisLockTemplate> waiters = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			waiters.add(template(redis.server().port(), commandTimeout));
		}
		List<Ending> endings = new ArrayList<>();
		for (int round = 0; round < 3; round++) {
			String name = "stall-" + round;
			String key = holder.lockKey(LockName.of(SCOPE, name));
			LockHandle held = holder.acquire(request(name).lease(Duration.ofSeconds(30)).build());
			List<CompletableFuture<Ending>> waiting = new ArrayList<>();
			for (RedisLockTemplate waiter : waiters) {
				waiting.add(acquireInThread(waiter, request(name).lease(LEASE).waitTime(Duration.ofSeconds(5)).build(),
						Duration.ofMillis(20)));
			}
			awaitRequests(key, waiters.size());
			// The waiters' requests are filed; their waits run on a while.
			Thread.sleep(300);
			held.close();
			redis.server().command("DEBUG", "SLEEP", "0.3");
			for (CompletableFuture<Ending> ending : waiting) {
				endings.add(ending.get(20, TimeUnit.SECONDS));
			}
		}
		assertThat(endings).as("waiters through a 300 ms stall with a 600 ms command timeout")
			.allSatisfy(ChainedHintFaultTests::acquiredOrTimedOut);
	}

	/**
	 * Fault 2 (medium), without a stall: Redis at {@code hz 1} ends a timed-out
	 * {@code BLPOP} up to a second late, which failed the chained waiters' attempts
	 * behind it. Here waiters of several processes wait behind a holder on such a Redis:
	 * every waiter must get the lock once it is released, never fail.
	 */
	@Test
	void shouldKeepEveryWaiterOnARedisThatTicksOncePerSecond() throws Exception {
		Duration commandTimeout = Duration.ofMillis(400);
		RedisLockTemplate holder = template(redis.server().port(), Connections.COMMAND_TIMEOUT);
		List<RedisLockTemplate> waiters = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			waiters.add(template(redis.server().port(), commandTimeout));
		}
		redis.server().command("CONFIG", "SET", "hz", "1");
		String key = holder.lockKey(LockName.of(SCOPE, "slow-tick"));
		LockHandle held = holder.acquire(request("slow-tick").lease(Duration.ofSeconds(30)).build());
		List<CompletableFuture<Ending>> waiting = new ArrayList<>();
		for (RedisLockTemplate waiter : waiters) {
			waiting.add(acquireInThread(waiter,
					request("slow-tick").lease(LEASE).waitTime(Duration.ofSeconds(6)).build(), Duration.ofMillis(20)));
		}
		awaitRequests(key, waiters.size());
		Thread.sleep(1500);
		held.close();
		List<Ending> endings = new ArrayList<>();
		for (CompletableFuture<Ending> ending : waiting) {
			endings.add(ending.get(20, TimeUnit.SECONDS));
		}
		assertThat(endings).as("waiters on a Redis at hz 1").allSatisfy((ending) -> {
			assertThat(ending.error()).isNull();
		});
	}

	/**
	 * Fault 3 (medium), on the path of the chained waiter: after a stall right behind a
	 * release, the waiter's call failed, but its attempt, queued in Redis, still took the
	 * lock, and nobody held it for a whole lease (another process waited 9.9 s). Here
	 * Redis runs the release and stalls for 2 s right after it, longer than the waiter's
	 * command timeout (1 s); once Redis answers again, another process must get the lock
	 * well before the lease ends, whether the waiter got it (and let it go) or failed.
	 */
	@Test
	void shouldFreeTheLockSoonAfterAStallBehindTheRelease() throws Exception {
		RedisLockTemplate holder = template(redis.server().port(), Duration.ofSeconds(5));
		RedisLockTemplate waiter = template(redis.server().port(), Duration.ofSeconds(1));
		RedisLockTemplate other = template(redis.server().port(), Connections.COMMAND_TIMEOUT);
		String key = holder.lockKey(LockName.of(SCOPE, "behind-release"));
		LockHandle held = holder.acquire(request("behind-release").lease(Duration.ofSeconds(30)).build());
		CompletableFuture<Ending> waiting = acquireInThread(waiter,
				request("behind-release").lease(LEASE).waitTime(Duration.ofSeconds(8)).build(), Duration.ZERO);
		awaitRequests(key, 1);
		Thread.sleep(300);
		long stallEnds;
		try (RespConnection first = connect(); RespConnection second = connect()) {
			// Redis reads the release while it sleeps, and the second sleep after it: it
			// runs both in one turn of its event loop, so the sleep comes right behind
			// the release, before anything the release wakes. The first sleep is shorter
			// than the waiter's command timeout: nothing it sent before fails in it.
			first.send("DEBUG", "SLEEP", "0.25");
			Thread.sleep(50);
			Thread release = new Thread(held::close, "holder-release");
			release.start();
			Thread.sleep(100);
			second.send("DEBUG", "SLEEP", "2");
			first.awaitNext();
			second.awaitNext();
			stallEnds = System.nanoTime();
			release.join(TimeUnit.SECONDS.toMillis(10));
		}
		Optional<LockHandle> taken = other
			.tryAcquire(request("behind-release").lease(LEASE).waitTime(LEASE.dividedBy(2)).build());
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stallEnds);
		taken.ifPresent(LockHandle::close);
		Ending ended = waiting.get(20, TimeUnit.SECONDS);
		assertThat(taken)
			.as("another process's lock, waited for up to half the lease (%d ms) after the stall, "
					+ "when the waiter's call ended with %s", millis, ended.outcome())
			.isPresent();
	}

	/**
	 * Fault 3 (medium), on any path: an acquisition that fails after an attempt that may
	 * have run (its reply lost or late) releases what that attempt took, by its hold id,
	 * as soon as Redis answers again. Here the attempt meets a 2 s stall with a 500 ms
	 * command timeout, so the call fails; once Redis answers again, another process must
	 * get the lock well before the failed attempt's lease ends.
	 */
	@Test
	void shouldReleaseWhatAnAttemptTookWhenItsCallFailedBeforeItsReply() throws Exception {
		RedisLockTemplate waiter = template(redis.server().port(), Duration.ofMillis(500));
		RedisLockTemplate other = template(redis.server().port(), Connections.COMMAND_TIMEOUT);
		long paused = System.nanoTime();
		redis.server().command("CLIENT", "PAUSE", "2000", "ALL");
		Ending failed = acquireInThread(waiter,
				request("late-reply").lease(LEASE).waitTime(Duration.ofSeconds(3)).build(), Duration.ZERO)
			.get(20, TimeUnit.SECONDS);
		assertThat(failed.error()).as("the call whose attempt met the stall").isInstanceOf(LockAccessException.class);
		sleepUntil(paused + TimeUnit.MILLISECONDS.toNanos(2000));
		long resumed = System.nanoTime();
		Object leaseLeft = redis.server().command("PTTL", other.lockKey(LockName.of(SCOPE, "late-reply")));
		Optional<LockHandle> taken = other
			.tryAcquire(request("late-reply").lease(LEASE).waitTime(LEASE.dividedBy(2)).build());
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed);
		taken.ifPresent(LockHandle::close);
		assertThat(taken)
			.as("another process's lock, waited for up to half the lease (%d ms) after Redis answered again, "
					+ "the lock's PTTL then %s ms, after the call failed with %s", millis, leaseLeft, failed.outcome())
			.isPresent();
	}

	/**
	 * Fault 3 on the reactive template, which runs the same driver: an acquisition whose
	 * attempt meets a stall longer than the command timeout fails, and what the attempt
	 * took once Redis ran it is released by its hold id, so that another process gets the
	 * lock well before that attempt's lease ends.
	 */
	@Test
	void shouldReleaseWhatAReactiveAttemptTookWhenItsCallFailedBeforeItsReply() throws Exception {
		LettuceConnectionFactory factory = Connections
			.start(new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500)).build()));
		this.factories.add(factory);
		ReactiveRedisLockTemplate waiter = ReactiveRedisLockTemplate.builder(factory).build();
		RedisLockTemplate other = template(redis.server().port(), Connections.COMMAND_TIMEOUT);
		try {
			waiter.acquire(request("reactive-late-reply").build()).flatMap(ReactiveLockHandle::release).block();
			long paused = System.nanoTime();
			redis.server().command("CLIENT", "PAUSE", "2000", "ALL");
			assertThatExceptionOfType(LockAccessException.class).as("the call whose attempt met the stall")
				.isThrownBy(() -> waiter
					.acquire(request("reactive-late-reply").lease(LEASE).waitTime(Duration.ofSeconds(3)).build())
					.block(Duration.ofSeconds(20)));
			sleepUntil(paused + TimeUnit.MILLISECONDS.toNanos(2000));
			long resumed = System.nanoTime();
			Optional<LockHandle> taken = other
				.tryAcquire(request("reactive-late-reply").lease(LEASE).waitTime(LEASE.dividedBy(2)).build());
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed);
			taken.ifPresent(LockHandle::close);
			assertThat(taken)
				.as("another process's lock, waited for up to half the lease (%d ms) after Redis answered again",
						millis)
				.isPresent();
		}
		finally {
			waiter.close();
		}
	}

	/**
	 * Fault 4 (medium): a chained waiter whose host was cut off, while Redis still saw
	 * its connection, took the lock with the attempt queued behind its {@code BLPOP}, and
	 * so cost the next waiter its lease (10 s, in 4 of 4 runs), not the claim of a
	 * reservation (2 s). Here the first waiter in line reaches Redis through a proxy that
	 * is cut just before the holder releases: the next waiter must get the lock within
	 * about a claim.
	 */
	@Test
	void shouldPassTheLockToTheNextWaiterWithinAClaimWhenTheFirstIsCutOff() throws Exception {
		try (ChaosProxy proxy = ChaosProxy.start(redis.server().port())) {
			RedisLockTemplate holder = template(redis.server().port(), Connections.COMMAND_TIMEOUT);
			RedisLockTemplate cutOff = template(proxy.port(), Connections.COMMAND_TIMEOUT);
			RedisLockTemplate next = template(redis.server().port(), Connections.COMMAND_TIMEOUT);
			String key = holder.lockKey(LockName.of(SCOPE, "cut-off"));
			LockHandle held = holder.acquire(request("cut-off").lease(Duration.ofSeconds(30)).build());
			CompletableFuture<Ending> first = acquireInThread(cutOff,
					request("cut-off").lease(LEASE).waitTime(Duration.ofSeconds(6)).build(), Duration.ZERO);
			awaitRequests(key, 1);
			CompletableFuture<Ending> second = acquireInThread(next,
					request("cut-off").lease(LEASE).waitTime(Duration.ofSeconds(6)).build(), Duration.ZERO);
			awaitRequests(key, 2);
			Thread.sleep(300);
			proxy.cut();
			long released = System.nanoTime();
			held.close();
			Ending taken = second.get(20, TimeUnit.SECONDS);
			long millis = TimeUnit.NANOSECONDS.toMillis(taken.endNanos() - released);
			proxy.heal();
			first.get(20, TimeUnit.SECONDS);
			assertThat(taken.error()).as("the next waiter's failure, %d ms after the release", millis).isNull();
			assertThat(millis).as("how long after the release the next waiter got the lock")
				.isLessThan(CLAIM.plus(Duration.ofMillis(1500)).toMillis());
		}
	}

	private static void acquiredOrTimedOut(Ending ending) {
		if (ending.error() != null) {
			assertThat(ending.error()).isInstanceOf(LockTimeoutException.class);
		}
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder(SCOPE).key(key);
	}

	/**
	 * Return a template of a process of its own, its scripts loaded.
	 */
	private RedisLockTemplate template(int port, Duration commandTimeout) {
		LettuceConnectionFactory factory = Connections
			.start(new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
					LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build()));
		this.factories.add(factory);
		RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
		this.templates.add(template);
		template.acquire(request("warm-up").build()).close();
		return template;
	}

	private static RespConnection connect() {
		return RespConnection.open(redis.server().host(), redis.server().port(), Duration.ofSeconds(10));
	}

	private static void awaitRequests(String key, int count) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Long.valueOf(count).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
	}

	private static void sleepUntil(long nanos) throws InterruptedException {
		long left = nanos - System.nanoTime();
		if (left > 0) {
			TimeUnit.NANOSECONDS.sleep(left);
		}
	}

	/**
	 * Acquire on a thread of its own, then hold the lock this long and release it.
	 */
	private static CompletableFuture<Ending> acquireInThread(RedisLockTemplate template, LockRequest request,
			Duration hold) {
		CompletableFuture<Ending> ending = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			long start = System.nanoTime();
			try (LockHandle handle = template.acquire(request)) {
				ending.complete(new Ending(start, System.nanoTime(), null));
				Thread.sleep(hold.toMillis());
			}
			catch (Throwable ex) {
				ending.complete(new Ending(start, System.nanoTime(), ex));
			}
		}, "waiter-" + request.name());
		thread.setDaemon(true);
		thread.start();
		return ending;
	}

	/**
	 * How a call ended: when it started, when it returned the lock or threw, and what it
	 * threw.
	 */
	private record Ending(long startNanos, long endNanos, @Nullable Throwable error) {

		long millis() {
			return TimeUnit.NANOSECONDS.toMillis(this.endNanos - this.startNanos);
		}

		String outcome() {
			return (this.error != null) ? this.error.toString() : "the lock";
		}

	}

}
