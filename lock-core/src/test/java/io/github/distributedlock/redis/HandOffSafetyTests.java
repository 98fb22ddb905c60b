package io.github.distributedlock.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.test.JvmProcess;
import io.github.distributedlock.test.RedisServer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Safety of the wait path where a release reserves the lock for a waiter's request (the
 * hand-off), checked through the public API, raw Redis commands and child JVMs only. Each
 * test reproduced a way the earlier direct hand-off let two callers hold a lock, or left
 * one taken, and failed on that engine (1f00c78).
 * <p>
 * The invariant: when {@code acquire()} returns a handle, Redis records that handle's
 * owner and token with a live lease; no two callers are inside at once; and once every
 * handle is closed, the lock key is gone. The only internals the tests know are the names
 * of the hand-off request set ({@code <lockKey>:requests}) and of the release channel
 * ({@code <lockKey>:released}).
 * <p>
 * Some tests hold back the pub/sub messages of one template with a {@link Gate} on the
 * executor of its own listener container (a public builder option): a slow listener
 * thread, made deterministic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HandOffSafetyTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration CHILD_START = Duration.ofSeconds(60);

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	/** The holder, Y. */
	private RedisLockTemplate y;

	/** Another process, on its own connections. */
	private RedisLockTemplate other;

	/** A stranger, Z, on its own connections. */
	private RedisLockTemplate stranger;

	/** A process whose pub/sub listener can be held back. */
	private RedisLockTemplate gated;

	private Gate gate;

	private RedisMessageListenerContainer gatedContainer;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private String scope;

	private static final AtomicInteger scopes = new AtomicInteger();

	protected abstract TestRedis redis();

	/**
	 * A new connection factory configured as an application would, with this command
	 * timeout.
	 */
	protected abstract LettuceConnectionFactory newFactory(Duration commandTimeout);

	/** The connection spec for {@link HandOffSafetyChildMains#connect}. */
	protected abstract String childSpec();

	/** The server that holds the key. */
	protected abstract RedisServer nodeFor(String key);

	/**
	 * Whether the server may stall for 3 s without the topology reacting (a Sentinel
	 * fails the master over after 1 s, Cluster nodes deem a peer failed after 2 s).
	 */
	protected boolean stallsSafely() {
		return false;
	}

	/**
	 * Whether the checks that only the driver decides, not the topology, run here: on one
	 * topology, as each takes half a minute.
	 */
	protected boolean runsDriverOnlyChecks() {
		return false;
	}

	Stream<Long> pauses() {
		// Just above the claim of a reservation: the case that broke.
		return Stream.of(HandOffRequest.CLAIM_MILLIS + 300);
	}

	@BeforeAll
	void startTemplates() {
		this.y = RedisLockTemplate.builder(factory()).subscriptionLinger(Duration.ofMillis(200)).build();
		this.other = RedisLockTemplate.builder(factory()).subscriptionLinger(Duration.ofMillis(200)).build();
		this.stranger = RedisLockTemplate.builder(factory()).subscriptionLinger(Duration.ofMillis(200)).build();
		LettuceConnectionFactory gatedFactory = factory();
		this.gate = new Gate();
		this.gatedContainer = new RedisMessageListenerContainer();
		this.gatedContainer.setConnectionFactory(gatedFactory);
		this.gatedContainer.setTaskExecutor(this.gate);
		this.gatedContainer.setMaxSubscriptionRegistrationWaitingTime(5000);
		this.gatedContainer.afterPropertiesSet();
		this.gated = RedisLockTemplate.builder(gatedFactory)
			.listenerContainer(this.gatedContainer)
			.subscriptionLinger(Duration.ofMillis(200))
			.build();
		this.gatedContainer.start();
	}

	private LettuceConnectionFactory factory() {
		LettuceConnectionFactory factory = newFactory(COMMAND_TIMEOUT);
		this.factories.add(factory);
		return factory;
	}

	@AfterAll
	void stopTemplates() throws Exception {
		this.gate.open();
		this.executor.shutdownNow();
		for (RedisLockTemplate template : List.of(this.y, this.other, this.stranger, this.gated)) {
			template.close();
		}
		this.gatedContainer.destroy();
		this.gate.shutdown();
		for (LettuceConnectionFactory factory : this.factories) {
			factory.destroy();
		}
	}

	@BeforeEach
	void pickScope(TestInfo info) {
		this.scope = "hs" + scopes.incrementAndGet() + "-" + info.getTestMethod().orElseThrow().getName();
	}

	// ---------------------------------------------------------------------------------
	// 1. A handle whose claim already ran out
	// ---------------------------------------------------------------------------------

	/**
	 * W (a child JVM) files its request, is frozen with SIGSTOP, and the holder releases.
	 * After the pause a stranger tries the lock; then W runs again. W must not return a
	 * handle that Redis does not record, nor while the stranger is inside.
	 */
	@ParameterizedTest(name = "paused {0} ms")
	@MethodSource("pauses")
	void shouldNotLetAPausedWaiterReturnAHandleWhoseClaimRanOut(long pauseMillis, @TempDir Path dir) throws Exception {
		String lockKey = lockKey("k");
		Path release = dir.resolve("release");
		LockHandle holder = this.y.acquire(request("k").lease(Duration.ofSeconds(30)).build());
		try (JvmProcess waiter = startWaiter("-", 30_000, 30_000, release)) {
			waiter.awaitLine("WAITING ", CHILD_START);
			awaitRequestFiled(lockKey);
			waiter.pause();
			long releasedAt = System.nanoTime();
			holder.close();
			sleepUntil(releasedAt + TimeUnit.MILLISECONDS.toNanos(pauseMillis));
			Optional<LockHandle> z = this.stranger
				.tryAcquire(request("k").lease(Duration.ofSeconds(30)).waitTime(Duration.ZERO).build());
			waiter.resume();
			long zReleasing = strangerHoldsThenReleases(z, Duration.ofMillis(1500));
			Acquired w = Acquired.parse(waiter.awaitLine("ACQUIRED ", Duration.ofSeconds(30)));
			Files.createFile(release);
			String released = waiter.awaitLine("RELEASE", Duration.ofSeconds(30));
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(w.redisToken())
				.as("token Redis records right after the paused waiter's acquire() returned (pause %d ms, stranger %s)",
						pauseMillis, z.isPresent() ? "got the lock" : "did not get the lock")
				.isEqualTo(Long.toString(w.token()));
			softly.assertThat(w.pttl()).as("lease Redis records right after acquire() returned").isPositive();
			if (z.isPresent()) {
				softly.assertThat(w.nanos() - zReleasing)
					.as("the paused waiter must return only after the stranger, who took the lock after the claim "
							+ "ran out, released it (ns after the stranger's release began)")
					.isPositive();
			}
			softly.assertThat(released).as("the waiter's release").startsWith("RELEASED ");
			softly.assertAll();
		}
		finally {
			closeQuietly(holder);
		}
		assertLockGone(lockKey);
	}

	/**
	 * The server stalls (3 s) right after the release that hands the lock to W, before
	 * the hand-off message leaves it; a stranger's attempt is served right after the
	 * stall. The order is made deterministic with {@code CLIENT PAUSE WRITE}: the
	 * release, a 3 s busy script and the stranger's attempt are postponed in this order,
	 * and run back to back, before any reply or message is written, when the pause is
	 * lifted.
	 */
	@Test
	void shouldNotLetAServerStallMakeAHandOffOutliveItsClaim(@TempDir Path dir) throws Exception {
		assumeTrue(stallsSafely(), "the topology would fail the stalled server over");
		String lockKey = lockKey("k");
		Path release = dir.resolve("release");
		RedisServer node = nodeFor(lockKey);
		LettuceConnectionFactory spinFactory = newFactory(COMMAND_TIMEOUT);
		LockHandle holder = this.y.acquire(request("k").lease(Duration.ofSeconds(30)).build());
		try (JvmProcess waiter = startWaiter("-", 30_000, 30_000, release)) {
			waiter.awaitLine("WAITING ", CHILD_START);
			awaitRequestFiled(lockKey);
			long blockedBefore = blockedClients(node);
			Future<?> released;
			Future<?> spin;
			Future<Optional<LockHandle>> z;
			node.command("CLIENT", "PAUSE", "20000", "WRITE");
			try {
				released = this.executor.submit(holder::close);
				awaitBlocked(node, blockedBefore + 1);
				spin = this.executor.submit(() -> {
					try (var connection = spinFactory.getConnection()) {
						return connection.scriptingCommands()
							.eval(SPIN.getBytes(), org.springframework.data.redis.connection.ReturnType.INTEGER, 0,
									"3000".getBytes());
					}
				});
				awaitBlocked(node, blockedBefore + 2);
				z = this.executor.submit(() -> this.stranger
					.tryAcquire(request("k").lease(Duration.ofSeconds(30)).waitTime(Duration.ZERO).build()));
				awaitBlocked(node, blockedBefore + 3);
			}
			finally {
				node.command("CLIENT", "UNPAUSE");
			}
			released.get(20, TimeUnit.SECONDS);
			spin.get(20, TimeUnit.SECONDS);
			Optional<LockHandle> zHandle = z.get(20, TimeUnit.SECONDS);
			long zReleasing = strangerHoldsThenReleases(zHandle, Duration.ofMillis(1500));
			Acquired w = Acquired.parse(waiter.awaitLine("ACQUIRED ", Duration.ofSeconds(30)));
			Files.createFile(release);
			waiter.awaitLine("RELEASE", Duration.ofSeconds(30));
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(w.redisToken())
				.as("token Redis records right after the waiter's acquire() returned (stranger %s)",
						zHandle.isPresent() ? "got the lock after the stall" : "did not get the lock")
				.isEqualTo(Long.toString(w.token()));
			softly.assertThat(w.pttl()).as("lease Redis records right after acquire() returned").isPositive();
			if (zHandle.isPresent()) {
				softly.assertThat(w.nanos() - zReleasing)
					.as("the waiter must return only after the stranger released (ns after the stranger's release began)")
					.isPositive();
			}
			softly.assertAll();
		}
		finally {
			closeQuietly(holder);
			spinFactory.destroy();
		}
		assertLockGone(lockKey);
	}

	// ---------------------------------------------------------------------------------
	// 2. A withdrawal frees a lock that a shared custom owner has re-entered
	// ---------------------------------------------------------------------------------

	/**
	 * T1 (owner "job") waits; the lock is handed to its request, but T1's listener is
	 * held back; T2 (owner "job") enters; T1 is interrupted and gives up. The lock must
	 * stay taken while T2 is inside.
	 */
	@Test
	void shouldNotLetAWithdrawalFreeALockTheSharedOwnerReentered() throws Exception {
		String lockKey = lockKey("k");
		LockHandle holder = this.y.acquire(request("k").lease(Duration.ofSeconds(30)).build());
		AtomicReferenceThread t1Thread = new AtomicReferenceThread();
		Future<LockHandle> t1 = this.executor.submit(() -> {
			t1Thread.set(Thread.currentThread());
			return this.gated.acquire(
					request("k").owner("job").lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(20)).build());
		});
		LockHandle t2 = null;
		LockHandle t1Handle = null;
		try {
			awaitRequestFiled(lockKey);
			this.gate.close();
			holder.close();
			Future<LockHandle> t2Future = this.executor.submit(() -> this.other.acquire(
					request("k").owner("job").lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(10)).build()));
			try {
				t2 = t2Future.get(3, TimeUnit.SECONDS);
			}
			catch (TimeoutException ex) {
				// Not in yet: T1 gives up first.
			}
			t1Thread.get().interrupt();
			if (t2 == null) {
				t2 = t2Future.get(15, TimeUnit.SECONDS);
			}
			try {
				t1Handle = t1.get(15, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				// Interrupted while waiting: expected.
			}
			Optional<LockHandle> z = this.stranger.tryAcquire(request("k").waitTime(Duration.ZERO).build());
			z.ifPresent(HandOffSafetyTests::closeQuietly);
			assertThat(z)
				.as("a stranger's attempt while T2 (owner \"job\") is inside%s",
						(t1Handle != null) ? " (and T1 too)" : ", after T1 (owner \"job\") gave up")
				.isEmpty();
			assertThat(redis().command("HGET", lockKey, "owner")).as("owner (its digest) while T2 is inside")
				.isEqualTo(LockOwners.digest("custom:job"));
		}
		finally {
			this.gate.open();
			closeQuietly(t2);
			closeQuietly(t1Handle);
			closeQuietly(holder);
		}
		assertLockGone(lockKey);
	}

	// ---------------------------------------------------------------------------------
	// 3. Two processes sharing a custom owner both take one hand-off
	// ---------------------------------------------------------------------------------

	/**
	 * Two fresh JVMs wait with owner "job", each for the first time. After the holder
	 * releases, the holds Redis records must match the handles that were returned, and a
	 * stranger must not get in until both released.
	 */
	@Test
	void shouldNotLetTwoProcessesSharingACustomOwnerBothTakeOneHandOff(@TempDir Path dir) throws Exception {
		String lockKey = lockKey("k");
		Path release1 = dir.resolve("release1");
		Path release2 = dir.resolve("release2");
		LockHandle holder = this.y.acquire(request("k").lease(Duration.ofSeconds(30)).build());
		long evalsBefore = evalCalls();
		try (JvmProcess c1 = startWaiter("job", 30_000, 30_000, release1);
				JvmProcess c2 = startWaiter("job", 30_000, 30_000, release2)) {
			c1.awaitLine("WAITING ", CHILD_START);
			c2.awaitLine("WAITING ", CHILD_START);
			// Each waiter tries once, then files its request with its next attempt.
			await().atMost(Duration.ofSeconds(30))
				.until(() -> redis().subscribers(lockKey + ":released") >= 2 && evalCalls() - evalsBefore >= 4
						&& zcard(lockKey + ":requests") >= 1);
			Future<String> a1 = this.executor.submit(() -> c1.awaitLine("ACQUIRED ", Duration.ofSeconds(30)));
			Future<String> a2 = this.executor.submit(() -> c2.awaitLine("ACQUIRED ", Duration.ofSeconds(30)));
			holder.close();
			await().atMost(Duration.ofSeconds(30)).until(() -> a1.isDone() || a2.isDone());
			await().atMost(Duration.ofSeconds(3)).pollDelay(Duration.ZERO).until(() -> a1.isDone() && a2.isDone());
			boolean both = a1.isDone() && a2.isDone();
			SoftAssertions softly = new SoftAssertions();
			if (both) {
				Acquired w1 = Acquired.parse(a1.get());
				Acquired w2 = Acquired.parse(a2.get());
				softly.assertThat(redis().command("HGET", lockKey, "holds"))
					.as("holds Redis records while both JVMs (owner \"job\") have a handle (tokens %d and %d)",
							w1.token(), w2.token())
					.isEqualTo("2");
				Files.createFile(release1);
				String released1 = c1.awaitLine("RELEASE", Duration.ofSeconds(30));
				Optional<LockHandle> z = this.stranger.tryAcquire(request("k").waitTime(Duration.ZERO).build());
				z.ifPresent(HandOffSafetyTests::closeQuietly);
				softly.assertThat(z)
					.as("a stranger's attempt after the first JVM released (%s) while the second is still inside",
							released1)
					.isEmpty();
				Files.createFile(release2);
				softly.assertThat(c2.awaitLine("RELEASE", Duration.ofSeconds(30)))
					.as("second JVM's release")
					.startsWith("RELEASED ");
			}
			else {
				// One at a time is fine too, as long as each is recorded.
				boolean first1 = a1.isDone();
				JvmProcess first = first1 ? c1 : c2;
				JvmProcess second = first1 ? c2 : c1;
				Acquired w = Acquired.parse((first1 ? a1 : a2).get());
				softly.assertThat(w.redisToken()).isEqualTo(Long.toString(w.token()));
				softly.assertThat(w.redisHolds()).isEqualTo("1");
				Files.createFile(first1 ? release1 : release2);
				first.awaitLine("RELEASE", Duration.ofSeconds(30));
				Acquired w2 = Acquired.parse((first1 ? a2 : a1).get(30, TimeUnit.SECONDS));
				softly.assertThat(w2.redisToken()).isEqualTo(Long.toString(w2.token()));
				Files.createFile(first1 ? release2 : release1);
				second.awaitLine("RELEASE", Duration.ofSeconds(30));
			}
			softly.assertAll();
		}
		finally {
			closeQuietly(holder);
		}
		assertLockGone(lockKey);
	}

	// ---------------------------------------------------------------------------------
	// 4. A replayed or forged message hands out a lock
	// ---------------------------------------------------------------------------------

	@Test
	void shouldNotHandOutTheLockForAForgedHandOffMessage() throws Exception {
		String lockKey = lockKey("k");
		LockHandle holder = this.y.acquire(request("k").lease(Duration.ofSeconds(30)).build());
		Future<Acquired> w = this.executor.submit(() -> {
			LockHandle handle = this.other
				.acquire(request("k").lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(20)).build());
			Acquired acquired = new Acquired(System.nanoTime(), handle.fencingToken(),
					String.valueOf(redis().command("HGET", lockKey, "token")),
					String.valueOf(redis().command("HGET", lockKey, "holds")),
					((Number) redis().command("PTTL", lockKey)).longValue());
			closeQuietly(handle);
			return acquired;
		});
		try {
			awaitRequestFiled(lockKey);
			List<?> members = (List<?>) redis().command("ZRANGE", lockKey + ":requests", "0", "-1");
			assertThat(members).isNotEmpty();
			for (Object member : members) {
				// The earlier engine's form, and the current one, which names the request
				// only.
				for (String forged : List.of("handoff:999 2000 " + member, "handoff:" + member, "handoff:999 " + member,
						"handoff:" + holderToken(lockKey) + " 2000 " + member, "reserved:" + member,
						"reserved:999 " + member)) {
					redis().command("PUBLISH", lockKey + ":released", forged);
				}
			}
			long heldSince = System.nanoTime();
			// While the holder holds, the waiter must stay waiting.
			try {
				Acquired early = w.get(1500, TimeUnit.MILLISECONDS);
				fail("the waiter returned a handle (token %d; Redis records token %s, holds %s) %d ms after forged "
						+ "hand-off messages while the holder still held the lock", early.token(), early.redisToken(),
						early.redisHolds(), TimeUnit.NANOSECONDS.toMillis(early.nanos() - heldSince));
			}
			catch (TimeoutException ex) {
				// Still waiting: right.
			}
			holder.close();
			Acquired acquired = w.get(20, TimeUnit.SECONDS);
			assertThat(acquired.redisToken()).as("token Redis records right after acquire() returned")
				.isEqualTo(Long.toString(acquired.token()));
			assertThat(acquired.pttl()).isPositive();
		}
		finally {
			closeQuietly(holder);
			w.cancel(true);
		}
		assertLockGone(lockKey);
	}

	// ---------------------------------------------------------------------------------
	// 5. Starvation
	// ---------------------------------------------------------------------------------

	/**
	 * Four writers on two templates keep handing the lock to each other. A reader, a
	 * polling waiter and a multi-lock waiter, each waiting up to 4 s, must still get it.
	 */
	@Test
	void shouldNotStarveReadersPollersAndMultiLocksBehindHandOffs() throws Exception {
		String lockKey = lockKey("k");
		Inside inside = new Inside();
		AtomicBoolean stop = new AtomicBoolean();
		AtomicLong writes = new AtomicLong();
		List<Throwable> writerFailures = Collections.synchronizedList(new ArrayList<>());
		List<Future<?>> writers = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			RedisLockTemplate template = (i % 2 == 0) ? this.y : this.other;
			writers.add(this.executor.submit(() -> {
				try {
					while (!stop.get()) {
						try (LockHandle handle = template.acquire(
								request("k").lease(Duration.ofSeconds(10)).waitTime(Duration.ofSeconds(20)).build())) {
							inside.enterWriter("writer " + handle.fencingToken());
							Thread.sleep(20);
							inside.leaveWriter();
							writes.incrementAndGet();
						}
					}
				}
				catch (Throwable ex) {
					writerFailures.add(ex);
				}
			}));
		}
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> writes.get() >= 20);
			Duration bound = Duration.ofSeconds(4);
			Future<Long> reader = this.executor.submit(() -> timed(() -> {
				try (LockHandle handle = this.stranger
					.acquire(request("k").mode(LockMode.READ).lease(Duration.ofSeconds(10)).waitTime(bound).build())) {
					inside.enterReader();
					Thread.sleep(20);
					inside.leaveReader();
				}
			}));
			Future<Long> poller = this.executor.submit(() -> timed(() -> {
				try (LockHandle handle = this.stranger.acquire(request("k").waitStrategy(WaitStrategy.POLLING)
					.lease(Duration.ofSeconds(10))
					.waitTime(bound)
					.build())) {
					inside.enterWriter("poller");
					Thread.sleep(20);
					inside.leaveWriter();
				}
			}));
			Future<Long> multi = this.executor.submit(() -> timed(() -> {
				try (LockHandle handle = this.stranger
					.acquireAll(List.of(request("k").lease(Duration.ofSeconds(10)).waitTime(bound).build(),
							request("free").lease(Duration.ofSeconds(10)).waitTime(bound).build()))) {
					inside.enterWriter("multi-lock");
					Thread.sleep(20);
					inside.leaveWriter();
				}
			}));
			String readerOutcome = outcome(reader);
			String pollerOutcome = outcome(poller);
			String multiOutcome = outcome(multi);
			// The figures behind the README's starvation bound.
			System.out.println(getClass().getSimpleName() + " under 4 writers: reader " + readerOutcome + ", poller "
					+ pollerOutcome + ", multi-lock " + multiOutcome);
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(readerOutcome).as("READ waiter while writers hand the lock over").startsWith("acquired");
			softly.assertThat(pollerOutcome)
				.as("POLLING waiter while writers hand the lock over")
				.startsWith("acquired");
			softly.assertThat(multiOutcome)
				.as("acquireAll waiter while writers hand the lock over")
				.startsWith("acquired");
			stop.set(true);
			for (Future<?> writer : writers) {
				writer.get(30, TimeUnit.SECONDS);
			}
			softly.assertThat(writerFailures).as("writer failures").isEmpty();
			softly.assertThat(inside.violations()).as("critical sections that overlapped").isEmpty();
			softly.assertAll();
		}
		finally {
			stop.set(true);
		}
		assertLockGone(lockKey);
	}

	// ---------------------------------------------------------------------------------
	// 6. A hold left behind
	// ---------------------------------------------------------------------------------

	/**
	 * A waiter whose listener is held back retries (at the holder's lease end) after the
	 * lock was handed to its own request: it must get one hold, so that once it released,
	 * the lock is free. "custom": a custom owner; "thread": a thread owner that still has
	 * a handle whose lease was lost.
	 */
	@ParameterizedTest(name = "{0} owner")
	@ValueSource(strings = { "custom", "thread" })
	void shouldLeaveNoHoldBehindWhenARetryRacesAHandOff(String kind) throws Exception {
		String lockKey = lockKey("k");
		ExecutorService waiterThread = Executors.newSingleThreadExecutor();
		LockHandle lost = null;
		LockHandle holder = null;
		LockHandle handle = null;
		try {
			String owner = "custom".equals(kind) ? "job" : null;
			if (owner == null) {
				lost = waiterThread.submit(() -> this.gated.acquire(request("k").lease(Duration.ofMillis(300)).build()))
					.get(10, TimeUnit.SECONDS);
				await().atMost(Duration.ofSeconds(5)).until(() -> !exists(lockKey));
			}
			holder = this.y.acquire(request("k").lease(Duration.ofMillis(1500)).build());
			Future<LockHandle> waiter = waiterThread.submit(() -> this.gated.acquire(
					request("k").owner(owner).lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(15)).build()));
			awaitRequestFiled(lockKey);
			this.gate.close();
			holder.close();
			try {
				handle = waiter.get(3, TimeUnit.SECONDS);
			}
			catch (TimeoutException ex) {
				// Not yet: let the messages through.
			}
			finally {
				this.gate.open();
			}
			if (handle == null) {
				handle = waiter.get(15, TimeUnit.SECONDS);
			}
			assertThat(redis().command("HGET", lockKey, "token")).as("token right after acquire() returned")
				.isEqualTo(Long.toString(handle.fencingToken()));
			Object holds = redis().command("HGET", lockKey, "holds");
			handle.close();
			handle = null;
			if (lost != null) {
				closeQuietly(lost);
				lost = null;
			}
			await().atMost(Duration.ofSeconds(1))
				.untilAsserted(() -> assertThat(exists(lockKey))
					.as("lock key after every handle was closed (it recorded holds=%s with one handle; PTTL now %s)",
							holds, redis().command("PTTL", lockKey))
					.isFalse());
		}
		finally {
			this.gate.open();
			closeQuietly(handle);
			closeQuietly(lost);
			closeQuietly(holder);
			waiterThread.shutdownNow();
			redis().command("DEL", lockKey);
		}
	}

	// ---------------------------------------------------------------------------------
	// Cohorts (docs/design/cohorting.md)
	// ---------------------------------------------------------------------------------

	/**
	 * B holds the lock under a cohort, with C asleep behind it. The lock is
	 * force-released and a stranger's attempt takes it right after, before anyone else's
	 * (both held back by {@code CLIENT PAUSE WRITE} and run back to back). The forced
	 * release wakes C, whose attempt is refused. Once the cohort's line heard it, B's
	 * release must not pass the lock to C (rule 4's last check, rule 8): C waits for the
	 * stranger, and gets the lock from Redis with a larger token.
	 */
	@Test
	void shouldStopACohortsPassesOnceItsLineHeardAForceRelease() throws Exception {
		String lockKey = lockKey("k");
		RedisServer node = nodeFor(lockKey);
		// The forced release must be one command queued before the stranger's. Without
		// Functions (Redis 6.2) the first run of its script is an EVALSHA refused with
		// NOSCRIPT, and its EVAL is sent after the pause, behind the stranger's attempt:
		// force a hold out once first, so the node caches the script.
		LockHandle warmUp = this.y.acquire(request("k").lease(Duration.ofSeconds(30)).build());
		assertThat(this.other.forceRelease(LockName.of(this.scope, "k"))).as("warm-up force-released").isTrue();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(warmUp::close);
		try (RedisLockTemplate cohorts = RedisLockTemplate.builder(factory())
			.cohorts(16, Duration.ofSeconds(5))
			.subscriptionLinger(Duration.ofMillis(200))
			.build()) {
			LockRequest lock = request("k").lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(60)).build();
			LockHandle first = cohorts.acquire(lock);
			CountDownLatch bHolds = new CountDownLatch(1);
			CountDownLatch bReleases = new CountDownLatch(1);
			// A heads the line alone; B, promoted with C behind it, opens a cohort. Each
			// release waits for the next head's request, so it reserves the lock for it:
			// a plain release, heard once B opened the cohort, would wake C, which then
			// sends its request and would take no pass, forced release or not (rule 5).
			Future<Long> a = this.executor.submit(() -> {
				try (LockHandle held = cohorts.acquire(lock)) {
					awaitRequestFiled(lockKey);
					return held.fencingToken();
				}
			});
			awaitWaiters(cohorts, 1);
			awaitRequestFiled(lockKey);
			Future<long[]> b = this.executor.submit(() -> {
				LockHandle held = cohorts.acquire(lock);
				long[] seen = { held.fencingToken(), (((RedisLockHandle) held).grant().cohort() != null) ? 1 : 0, 0 };
				bHolds.countDown();
				bReleases.await();
				try {
					held.close();
				}
				catch (LockLeaseLostException ex) {
					seen[2] = 1;
				}
				return seen;
			});
			awaitWaiters(cohorts, 2);
			Future<long[]> c = this.executor.submit(() -> {
				try (LockHandle held = cohorts.acquire(lock)) {
					return new long[] { held.fencingToken(), ((RedisLockHandle) held).grant().token(),
							System.nanoTime() };
				}
			});
			awaitWaiters(cohorts, 3);
			first.close();
			assertThat(bHolds.await(30, TimeUnit.SECONDS)).as("B holds").isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> cohorts.waitingThreads() == 1);
			long blockedBefore = blockedClients(node);
			Future<Boolean> forced;
			Future<Optional<LockHandle>> z;
			node.command("CLIENT", "PAUSE", "20000", "WRITE");
			try {
				// Each given time to be queued besides the count, which a Sentinel's
				// hello
				// (a PUBLISH, also held back) may reach first.
				forced = this.executor.submit(() -> this.other.forceRelease(LockName.of(this.scope, "k")));
				awaitBlocked(node, blockedBefore + 1);
				Thread.sleep(200);
				z = this.executor.submit(() -> this.stranger
					.tryAcquire(request("k").lease(Duration.ofSeconds(30)).waitTime(Duration.ZERO).build()));
				awaitBlocked(node, blockedBefore + 2);
				Thread.sleep(200);
			}
			finally {
				node.command("CLIENT", "UNPAUSE");
			}
			assertThat(forced.get(20, TimeUnit.SECONDS)).as("force-released").isTrue();
			LockHandle stranger = z.get(20, TimeUnit.SECONDS).orElseThrow();
			// Long enough for the cohort's line to hear the forced release on any
			// machine.
			Thread.sleep(1000);
			bReleases.countDown();
			long[] bSeen = b.get(30, TimeUnit.SECONDS);
			Thread.sleep(300);
			boolean cWaitedForTheStranger = !c.isDone();
			long strangerReleased = System.nanoTime();
			stranger.close();
			long[] cSeen = c.get(30, TimeUnit.SECONDS);
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(a.get(30, TimeUnit.SECONDS)).as("A's token").isLessThan(bSeen[0]);
			softly.assertThat(bSeen[1]).as("B opened a cohort").isOne();
			softly.assertThat(bSeen[2]).as("B's release reports the lost lease").isOne();
			softly.assertThat(cWaitedForTheStranger).as("C still waits while the stranger holds the lock").isTrue();
			softly.assertThat(cSeen[0]).as("C's token, above the stranger's").isGreaterThan(stranger.fencingToken());
			softly.assertThat(cSeen[1]).as("C's hold is Redis's own").isEqualTo(cSeen[0]);
			softly.assertThat(cSeen[2] - strangerReleased)
				.as("C got the lock after the stranger released")
				.isPositive();
			softly.assertAll();
		}
		assertLockGone(lockKey);
	}

	/**
	 * Six threads of one template take the lock over and over in cohorts of four; another
	 * process (W) asks for it. Once W's request is in Redis's line, the cohort holding
	 * the lock may pass it at most three more times, and one more cohort may go first
	 * (the line's head may have filed a request before W's): at most two cohorts' holds
	 * before W, plus the one whose grant was being recorded (docs/design/cohorting.md,
	 * "What a remote waiter can wait"). A cohort with no limit would keep W waiting for
	 * as long as its threads run.
	 */
	@Test
	void shouldServeARemoteRequestWithinTwoCohortsOfItsFiling(@TempDir Path dir) throws Exception {
		assumeTrue(runsDriverOnlyChecks(), "the bound is the driver's: one topology runs it");
		int holders = 4;
		String lockKey = lockKey("k");
		String ours = (String) privateField(io.github.distributedlock.redis.core.UniqueIds.ofProcess(), "processId");
		List<Long> granted = Collections.synchronizedList(new ArrayList<>());
		AtomicBoolean stop = new AtomicBoolean();
		try (RedisLockTemplate cohorts = RedisLockTemplate.builder(factory())
			.cohorts(holders, Duration.ofSeconds(5))
			.subscriptionLinger(Duration.ofMillis(200))
			.build()) {
			LockRequest lock = request("k").lease(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(60)).build();
			List<Future<?>> threads = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				threads.add(this.executor.submit(() -> {
					while (!stop.get()) {
						try (LockHandle held = cohorts.acquire(lock)) {
							granted.add(System.nanoTime());
							TimeUnit.MILLISECONDS.sleep(1);
						}
					}
					return null;
				}));
			}
			List<Long> holdsBefore = new ArrayList<>();
			try {
				// W may find the lock free between two cohorts and file no request: such
				// a
				// round counts nothing.
				for (int round = 0; round < 8 && holdsBefore.size() < 2; round++) {
					Path release = dir.resolve("release" + round);
					try (JvmProcess waiter = startWaiter("-", 30_000, 30_000, release)) {
						waiter.awaitLine("WAITING ", CHILD_START);
						Future<String> acquired = this.executor
							.submit(() -> waiter.awaitLine("ACQUIRED ", Duration.ofSeconds(30)));
						long filedSeen = -1;
						while (filedSeen < 0 && !acquired.isDone()) {
							long now = System.nanoTime();
							if (redis().command("ZRANGE", lockKey + ":requests", "0", "-1") instanceof List<?> members
									&& members.stream()
										.map(String::valueOf)
										.anyMatch((member) -> !member.substring(member.lastIndexOf(':') + 1)
											.startsWith(ours + "."))) {
								filedSeen = now;
							}
						}
						Acquired w = Acquired.parse(acquired.get(30, TimeUnit.SECONDS));
						if (filedSeen >= 0) {
							long seen = filedSeen;
							holdsBefore
								.add(granted.stream().filter((nanos) -> nanos > seen && nanos < w.nanos()).count());
						}
						Files.createFile(release);
						waiter.awaitLine("RELEASE", Duration.ofSeconds(30));
					}
				}
			}
			finally {
				stop.set(true);
			}
			for (Future<?> thread : threads) {
				thread.get(30, TimeUnit.SECONDS);
			}
			System.out.println("cohort holds between a remote request and its grant: " + holdsBefore + " (of "
					+ granted.size() + " holds)");
			assertThat(holdsBefore).as("rounds in which W's request was seen in Redis").hasSize(2);
			assertThat(granted).as("holds of the cohorts' template").hasSizeGreaterThan(2 * holders);
			assertThat(holdsBefore).as("the cohorts' holds granted after W's request was seen, before W's grant")
				.allSatisfy((count) -> assertThat(count).isLessThanOrEqualTo(2L * holders + 1));
		}
		assertLockGone(lockKey);
	}

	private static Object privateField(Object target, String field) throws ReflectiveOperationException {
		java.lang.reflect.Field declared = target.getClass().getDeclaredField(field);
		declared.setAccessible(true);
		return declared.get(target);
	}

	private static void awaitWaiters(RedisLockTemplate template, int waiters) {
		await().atMost(Duration.ofSeconds(10)).until(() -> template.waitingThreads() >= waiters);
	}

	// ---------------------------------------------------------------------------------
	// Helpers
	// ---------------------------------------------------------------------------------

	private static final String SPIN = "local s = redis.call('TIME') "
			+ "local e = tonumber(s[1]) * 1000000 + tonumber(s[2]) + tonumber(ARGV[1]) * 1000 "
			+ "while true do local n = redis.call('TIME') "
			+ "if tonumber(n[1]) * 1000000 + tonumber(n[2]) >= e then return 1 end end";

	private LockRequest.Builder request(String key) {
		return LockRequest.builder(this.scope).key(key);
	}

	private String lockKey(String key) {
		return this.y.lockKey(LockName.of(this.scope, key));
	}

	private JvmProcess startWaiter(String owner, long waitMillis, long leaseMillis, Path release) {
		return JvmProcess.start(HandOffSafetyChildMains.Waiter.class, childSpec(), this.scope, "k", owner,
				Long.toString(waitMillis), Long.toString(leaseMillis), release.toString());
	}

	private void awaitRequestFiled(String lockKey) {
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> zcard(lockKey + ":requests") >= 1);
	}

	private long zcard(String key) {
		return ((Number) redis().command("ZCARD", key)).longValue();
	}

	private boolean exists(String key) {
		return ((Number) redis().command("EXISTS", key)).longValue() == 1;
	}

	private String holderToken(String lockKey) {
		return String.valueOf(redis().command("HGET", lockKey, "token"));
	}

	private long evalCalls() {
		var calls = redis().commandCalls();
		return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L) + calls.getOrDefault("fcall", 0L);
	}

	private static long blockedClients(RedisServer node) {
		String info = String.valueOf(node.command("INFO", "clients"));
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("blocked_clients:")) {
				return Long.parseLong(line.substring("blocked_clients:".length()).trim());
			}
		}
		throw new IllegalStateException("no blocked_clients in " + info);
	}

	private static void awaitBlocked(RedisServer node, long count) {
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> blockedClients(node) >= count);
	}

	private void assertLockGone(String lockKey) {
		await().atMost(Duration.ofSeconds(3))
			.untilAsserted(() -> assertThat(exists(lockKey)).as("lock key %s after every handle was closed", lockKey)
				.isFalse());
	}

	/**
	 * Let the stranger, if it got the lock, hold it for a while, then release it.
	 * @return {@link System#nanoTime()} when the stranger's release began (0 if it has
	 * none)
	 */
	private static long strangerHoldsThenReleases(Optional<LockHandle> z, Duration hold) throws InterruptedException {
		if (z.isEmpty()) {
			return 0;
		}
		Thread.sleep(hold.toMillis());
		long releasing = System.nanoTime();
		closeQuietly(z.get());
		return releasing;
	}

	private static void sleepUntil(long nanos) throws InterruptedException {
		long left;
		while ((left = nanos - System.nanoTime()) > 0) {
			TimeUnit.NANOSECONDS.sleep(left);
		}
	}

	private static long timed(ThrowingRunnable action) throws Exception {
		long start = System.nanoTime();
		action.run();
		return System.nanoTime() - start;
	}

	private static String outcome(Future<Long> future) throws InterruptedException {
		try {
			return "acquired after " + TimeUnit.NANOSECONDS.toMillis(future.get(30, TimeUnit.SECONDS)) + " ms";
		}
		catch (ExecutionException ex) {
			return "failed: " + ex.getCause();
		}
		catch (TimeoutException ex) {
			return "still waiting after 30 s";
		}
	}

	static void closeQuietly(LockHandle handle) {
		if (handle == null) {
			return;
		}
		try {
			handle.close();
		}
		catch (LockLeaseLostException ex) {
			// Already gone.
		}
		catch (RuntimeException ex) {
			// Best effort.
		}
	}

	@FunctionalInterface
	interface ThrowingRunnable {

		void run() throws Exception;

	}

	/**
	 * What a child JVM saw right after its {@code acquire()} returned.
	 */
	record Acquired(long nanos, long token, String redisToken, String redisHolds, long pttl) {

		static Acquired parse(String line) {
			String[] parts = line.split(" ");
			return new Acquired(Long.parseLong(parts[1]), Long.parseLong(parts[2]), parts[3], parts[4],
					Long.parseLong(parts[5]));
		}

	}

	private static final class AtomicReferenceThread {

		private final CountDownLatch set = new CountDownLatch(1);

		private volatile Thread thread;

		void set(Thread thread) {
			this.thread = thread;
			this.set.countDown();
		}

		Thread get() throws InterruptedException {
			this.set.await(10, TimeUnit.SECONDS);
			return this.thread;
		}

	}

	/**
	 * An overlap detector: writers exclude everyone, readers exclude writers.
	 */
	static final class Inside {

		private final AtomicInteger writers = new AtomicInteger();

		private final AtomicInteger readers = new AtomicInteger();

		private final List<String> violations = Collections.synchronizedList(new ArrayList<>());

		void enterWriter(String who) {
			int w = this.writers.incrementAndGet();
			int r = this.readers.get();
			if (w != 1 || r != 0) {
				this.violations.add(who + " entered with " + (w - 1) + " writers and " + r + " readers inside");
			}
		}

		void leaveWriter() {
			this.writers.decrementAndGet();
		}

		void enterReader() {
			this.readers.incrementAndGet();
			int w = this.writers.get();
			if (w != 0) {
				this.violations.add("a reader entered with " + w + " writers inside");
			}
		}

		void leaveReader() {
			this.readers.decrementAndGet();
		}

		List<String> violations() {
			return new ArrayList<>(this.violations);
		}

	}

	/**
	 * The executor of a listener container that can be held shut: messages wait until it
	 * opens again, in order.
	 */
	static final class Gate implements Executor {

		private final ExecutorService thread = Executors.newSingleThreadExecutor((runnable) -> {
			Thread listener = new Thread(runnable, "gated-listener");
			listener.setDaemon(true);
			return listener;
		});

		private volatile CountDownLatch shut = new CountDownLatch(0);

		/**
		 * Hold back every message from now on (returns once the listener thread is held).
		 */
		void close() throws InterruptedException {
			CountDownLatch latch = new CountDownLatch(1);
			CountDownLatch held = new CountDownLatch(1);
			this.shut = latch;
			this.thread.execute(() -> {
				held.countDown();
				try {
					latch.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			assertThat(held.await(10, TimeUnit.SECONDS)).as("gate closed").isTrue();
		}

		void open() {
			this.shut.countDown();
		}

		void shutdown() {
			open();
			this.thread.shutdownNow();
		}

		@Override
		public void execute(Runnable command) {
			this.thread.execute(command);
		}

	}

}
