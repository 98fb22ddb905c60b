package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplateBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.github.distributedlock.chaos.ResendBench.LEASE;
import static io.github.distributedlock.chaos.ResendBench.inBackground;
import static io.github.distributedlock.chaos.ResendBench.onScript;
import static io.github.distributedlock.chaos.ResendBench.takes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The scripts of letting go, each run twice because its reply was lost (issue 22): a
 * waiter's withdrawal ({@code release.lua} with its request), a fair waiter leaving the
 * queue ({@code leave-fair.lua}), a writer dropping its intent ({@code drop-intent.lua}),
 * a release before the minimum hold ({@code release*.lua} keeping the lock taken) and a
 * forced release ({@code force-release.lua}). Where the script's effect depends on what
 * happened just before it ran, the fault's step makes that happen at the right moment:
 * the holder releases just before Redis runs a withdrawal, so the lock is reserved for
 * the request being withdrawn. Each test checks what a user sees: who gets the lock, in
 * which order, whether closing throws, and that no key is left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResentGivingUpTests {

	/**
	 * How long a waiter that gives up waits: long enough for it to file its request or
	 * join the queue and for the test to start two more waiters behind it on a busy
	 * machine (600 ms was not, in CI), short enough for a test.
	 */
	private static final Duration GIVE_UP_AFTER = Duration.ofSeconds(2);

	/**
	 * How long the next waiter may take to get a lock passed on to it: well under the
	 * claim of a reservation (2 s) and under the fair waiters' heartbeat
	 * ({@link #FAIR_WAITER_TIMEOUT} / 3), after which it would try anyway.
	 */
	private static final Duration PASSED_ON_WITHIN = Duration.ofSeconds(1);

	private static final Duration FAIR_WAITER_TIMEOUT = Duration.ofSeconds(9);

	private ResendBench bench;

	/** Connected through the proxy: its commands are the ones re-sent. */
	private RedisLockTemplate holder;

	/** Connected to Redis directly, with owners of its own. */
	private RedisLockTemplate stranger;

	private int tests;

	private String scope;

	@BeforeAll
	void startRedis() throws IOException {
		this.bench = ResendBench.start();
	}

	@AfterAll
	void stopRedis() {
		// Null where starting it failed.
		if (this.bench != null) {
			this.bench.close();
		}
	}

	@BeforeEach
	void connect(TestInfo info) {
		this.scope = info.getTestMethod().orElseThrow().getName() + "-" + (++this.tests);
		this.holder = warmedUp(this.bench.throughProxy(this::fairWaitersSlow));
		this.stranger = this.bench.direct();
	}

	@AfterEach
	void disconnect() {
		this.bench.disconnect();
	}

	/**
	 * The holder releases just as a waiter that gave up withdraws its request, so the
	 * lock is reserved for that request; the withdrawal, run twice, passes the
	 * reservation on to the next waiter, which takes the lock, and its second run, after
	 * that, leaves the new hold alone.
	 */
	@Test
	void shouldPassAReservationOnWhenItsWithdrawalIsResent() throws Exception {
		LockHandle held = this.bench.direct().acquire(request().build());
		RedisLockTemplate next = warmedUp(this.bench.direct());
		CompletableFuture<Optional<LockHandle>> givingUp = inBackground(
				() -> this.holder.tryAcquire(request().waitTime(GIVE_UP_AFTER).build()));
		awaitRequests(1);
		CompletableFuture<Optional<LockHandle>> waiting = inBackground(
				() -> next.tryAcquire(request().waitTime(Duration.ofSeconds(10)).build()));
		awaitRequests(2);
		ReplyDrop drop = this.bench.arm(onScript("release.lua").beforeForwarding(releaseReservingForTheOldest(held))
			.afterRunning(() -> awaitWithin(waiting, "the next waiter's hold, once the withdrawal passed it on")));
		assertThat(givingUp.get(5, TimeUnit.SECONDS)).as("the waiter that gave up").isEmpty();
		this.bench.assertRanTwice(drop, Duration.ofSeconds(2));
		Optional<LockHandle> taken = waiting.get();
		assertThat(taken).as("the next waiter, whom the withdrawal passed the reservation on to").isPresent();
		assertThat(takes(this.stranger, request().waitTime(Duration.ZERO).build()))
			.as("a stranger took the lock that the next waiter held when the withdrawal ran again")
			.isFalse();
		assertThat(taken.get().isHeld()).as("the next waiter's hold, after the withdrawal ran again").isTrue();
		taken.get().close();
		assertFreeAndGone(HoldKind.EXCLUSIVE, taken.get().name());
	}

	/**
	 * The same with nobody else waiting: the withdrawal, run twice, frees the lock at
	 * once instead of leaving it reserved for the request's claim.
	 */
	@Test
	void shouldFreeALockReservedForAWithdrawnRequestWhenTheWithdrawalIsResent() throws Exception {
		LockHandle held = this.bench.direct().acquire(request().build());
		CompletableFuture<Optional<LockHandle>> givingUp = inBackground(
				() -> this.holder.tryAcquire(request().waitTime(GIVE_UP_AFTER).build()));
		awaitRequests(1);
		ReplyDrop drop = this.bench.arm(onScript("release.lua").beforeForwarding(releaseReservingForTheOldest(held)));
		assertThat(givingUp.get(5, TimeUnit.SECONDS)).as("the waiter that gave up").isEmpty();
		this.bench.assertRanTwice(drop, Duration.ofSeconds(2));
		assertFreeAndGone(HoldKind.EXCLUSIVE, held.name());
	}

	/**
	 * A fair waiter gives up just as the holder releases; its leaving the queue, run
	 * twice, tells the next waiter that its turn came, and the one after it still waits
	 * for its own turn.
	 */
	@Test
	void shouldServeTheFairQueueInOrderWhenALeaveIsResent() throws Exception {
		LockHandle held = this.bench.direct(this::fairWaitersSlow).acquire(fair().build());
		RedisLockTemplate second = warmedUp(this.bench.direct(this::fairWaitersSlow));
		RedisLockTemplate third = warmedUp(this.bench.direct(this::fairWaitersSlow));
		CompletableFuture<Optional<LockHandle>> givingUp = inBackground(
				() -> this.holder.tryAcquire(fair().waitTime(GIVE_UP_AFTER).build()));
		awaitQueued(1);
		CompletableFuture<Optional<LockHandle>> secondInLine = inBackground(
				() -> second.tryAcquire(fair().waitTime(Duration.ofSeconds(10)).build()));
		awaitQueued(2);
		CompletableFuture<Optional<LockHandle>> thirdInLine = inBackground(
				() -> third.tryAcquire(fair().waitTime(Duration.ofSeconds(10)).build()));
		awaitQueued(3);
		// The release names the head of the queue, which is leaving: only the leave can
		// tell the next one.
		ReplyDrop drop = this.bench.arm(onScript("leave-fair.lua").beforeForwarding(held::close));
		assertThat(givingUp.get(5, TimeUnit.SECONDS)).as("the fair waiter that gave up").isEmpty();
		this.bench.assertRanTwice(drop, Duration.ofSeconds(2));
		Optional<LockHandle> secondHold = secondInLine.get(PASSED_ON_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(secondHold).as("the second in line, after the first left").isPresent();
		assertThat(thirdInLine).as("the third in line, while the second holds the lock").isNotDone();
		assertThat(takes(this.stranger, fair().waitTime(Duration.ZERO).build()))
			.as("a stranger took the fair lock that the second in line held")
			.isFalse();
		secondHold.get().close();
		Optional<LockHandle> thirdHold = thirdInLine.get(PASSED_ON_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(thirdHold).as("the third in line, after the second closed").isPresent();
		thirdHold.get().close();
		assertFreeAndGone(HoldKind.FAIR, held.name());
	}

	/**
	 * A writer held back by readers gives up and drops its writer intent; run twice, the
	 * drop leaves no intent behind, so a new reader gets in at once.
	 */
	@Test
	void shouldLetNewReadersInWhenADroppedWriterIntentIsResent() throws Exception {
		LockHandle reading = this.bench.direct().acquire(request().mode(LockMode.READ).build());
		ReplyDrop drop = this.bench.arm(onScript("drop-intent.lua"));
		Optional<LockHandle> writer = this.holder
			.tryAcquire(request().mode(LockMode.WRITE).waitTime(GIVE_UP_AFTER).build());
		assertThat(writer).as("the writer held back by a reader").isEmpty();
		// Sent without waiting for its reply: awaited here.
		this.bench.assertRanTwice(drop, Duration.ofSeconds(1));
		assertThat(takes(this.bench.direct(), request().mode(LockMode.READ).waitTime(Duration.ZERO).build()))
			.as("a new reader, once the writer that gave up dropped its intent")
			.isTrue();
		reading.close();
		assertFreeAndGone(HoldKind.READ, reading.name());
	}

	/**
	 * A release before the minimum hold ended keeps the lock taken by nobody until it
	 * ends; run twice, the release answers without error (the second run finds the lock
	 * kept after this hold), the lock stays taken until the minimum hold ends, and then
	 * frees with nothing left.
	 */
	@ParameterizedTest
	@EnumSource(value = HoldKind.class, names = { "EXCLUSIVE", "FAIR", "PERMIT" })
	void shouldKeepTheLockForItsMinimumHoldWhenTheReleaseIsResent(HoldKind kind) throws Exception {
		assertKeptForTheMinimumHoldWhenTheReleaseIsResent(kind);
	}

	/**
	 * The same for a read lock.
	 */
	@Test
	void shouldKeepAReadLockForItsMinimumHoldWhenTheReleaseIsResent() throws Exception {
		assertKeptForTheMinimumHoldWhenTheReleaseIsResent(HoldKind.READ);
	}

	private void assertKeptForTheMinimumHoldWhenTheReleaseIsResent(HoldKind kind) throws Exception {
		Duration minimum = Duration.ofMillis(600);
		long beforeNanos = System.nanoTime();
		LockHandle held = this.holder.acquire(kind.holding(request()).holdAtLeast(minimum).build());
		this.bench.resent(kind.releaseScript(), held::close);
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO)))
			.as("a stranger took the %s lock during its minimum hold", kind)
			.isFalse();
		Optional<LockHandle> next = this.stranger.tryAcquire(excluded(kind, Duration.ofSeconds(3)));
		Duration taken = Duration.ofNanos(System.nanoTime() - beforeNanos);
		assertThat(next).as("a stranger waiting for the %s lock to be free after its minimum hold", kind).isPresent();
		assertThat(taken).as("when the stranger got the %s lock, counted from before its first hold", kind)
			.isGreaterThanOrEqualTo(minimum);
		next.get().close();
		this.bench.assertNoKeysLeft(this.stranger, held.name());
	}

	/**
	 * A forced release run twice deletes the lock once: its holder learns of the loss at
	 * close, and the lock is free. Its answer may be either: the second run finds nothing
	 * to delete.
	 */
	@Test
	void shouldFreeTheLockWhenAForceReleaseIsResent() throws Exception {
		LockHandle held = this.bench.direct().acquire(request().build());
		LockName name = held.name();
		this.bench.resent("force-release.lua", () -> this.holder.forceRelease(name));
		assertThatThrownBy(held::close).as("closing the hold that was force-released")
			.isInstanceOf(LockLeaseLostException.class);
		assertFreeAndGone(HoldKind.EXCLUSIVE, name);
	}

	/**
	 * A forced release ends the hold it was meant for, not one taken after it ran: a
	 * newcomer takes the lock between the two runs, and must keep it.
	 */
	@Test
	void shouldKeepAHoldTakenBetweenTheRunsOfAResentForceRelease() throws Exception {
		LockHandle held = this.bench.direct().acquire(request().build());
		LockName name = held.name();
		RedisLockTemplate newcomer = this.bench.direct();
		AtomicReference<LockHandle> taken = new AtomicReference<>();
		ReplyDrop drop = this.bench.arm(onScript("force-release.lua")
			.afterRunning(() -> taken.set(newcomer.acquire(request().waitTime(Duration.ZERO).build()))));
		this.holder.forceRelease(name);
		this.bench.assertRanTwice(drop, Duration.ofSeconds(1));
		assertThat(taken.get()).as("the newcomer's hold, taken between the two runs").isNotNull();
		assertThat(takes(this.stranger, request().waitTime(Duration.ZERO).build()))
			.as("a stranger took the lock that the newcomer took after the forced release")
			.isFalse();
		taken.get().close();
		assertFreeAndGone(HoldKind.EXCLUSIVE, name);
	}

	/**
	 * Return a step that releases the last hold, which reserves the lock for the oldest
	 * request: the one about to be withdrawn. It checks that it did, or the test would
	 * prove nothing.
	 */
	private Runnable releaseReservingForTheOldest(LockHandle held) {
		String oldest = this.bench.lowestScored(ProtocolTimings.requestsKey(lockKey()));
		return () -> {
			held.close();
			assertThat(this.bench.command("HGET", lockKey(), "reserved"))
				.as("the request the lock was reserved for by its release")
				.isEqualTo(oldest);
		};
	}

	/**
	 * Return the template once it has taken and released a lock of its own: connected,
	 * its scripts loaded. A template's first call may take longer than
	 * {@link #GIVE_UP_AFTER} on a busy machine, and the waiter that gives up would leave
	 * before the others joined.
	 */
	private RedisLockTemplate warmedUp(RedisLockTemplate template) {
		LockRequest warmUp = LockRequest.builder(this.scope).key("warm-up").waitTime(Duration.ofSeconds(5)).build();
		assertThat(takes(template, warmUp)).as("a warm-up lock nobody else takes").isTrue();
		return template;
	}

	private void awaitRequests(int count) {
		String requests = ProtocolTimings.requestsKey(lockKey());
		await().atMost(Duration.ofSeconds(2)).until(() -> this.bench.zcard(requests) == count);
	}

	private void awaitQueued(int count) {
		String queue = ProtocolTimings.fairQueueKey(lockKey());
		await().atMost(Duration.ofSeconds(2)).until(() -> this.bench.zcard(queue) == count);
	}

	private static void awaitWithin(CompletableFuture<?> call, String what) {
		try {
			call.get(PASSED_ON_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (Exception ex) {
			throw new AssertionError("No " + what + " within " + PASSED_ON_WITHIN, ex);
		}
	}

	/**
	 * Check that a stranger gets the lock at its first attempt, and that no key of it is
	 * left after the stranger released it.
	 */
	private void assertFreeAndGone(HoldKind kind, LockName name) {
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO)))
			.as("a stranger took the %s lock at once, every hold being closed", kind)
			.isTrue();
		this.bench.assertNoKeysLeft(this.stranger, name);
	}

	/**
	 * Make fair waiters call Redis seldom, so that one that is woken early was told its
	 * turn came.
	 */
	private RedisLockTemplateBuilder fairWaitersSlow(RedisLockTemplateBuilder builder) {
		return builder.fairWaiterTimeout(FAIR_WAITER_TIMEOUT);
	}

	private String lockKey() {
		return this.stranger.lockKey(LockName.of(this.scope, "k"));
	}

	private LockRequest.Builder request() {
		return LockRequest.builder(this.scope).key("k").lease(LEASE);
	}

	private LockRequest.Builder fair() {
		return request().fair(true);
	}

	private LockRequest excluded(HoldKind kind, Duration waitTime) {
		return kind.excluded(request()).waitTime(waitTime).build();
	}

}
