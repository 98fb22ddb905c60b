package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.redis.RedisLockTemplate;
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
import static io.github.distributedlock.chaos.ResendBench.takes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts that act on a hold without ending it, each run twice because its reply was
 * lost (issue 22): an extension ({@code extend.lua}, {@code extend-read.lua},
 * {@code extend-permit.lua}), the watchdog's renewal of a read hold or a permit (through
 * the same scripts), the check {@code isHeld()} of a read hold or a permit
 * ({@code held-member.lua}) and {@code findHeld} ({@code read-hold.lua}). Each test
 * checks what a user sees: the call answers without error and rightly, the hold stays and
 * excludes a stranger, the lease Redis keeps outlives the handle's own estimate, and once
 * the hold is closed the lock is free at once with no key left. The renewal of a plain
 * lock ({@code renew.lua}) is in {@link ResentCommandTests}. Besides, a {@code findHeld}
 * whose reply comes late, after the lease it reports.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResentLiveHoldTests {

	/** The lease of the holds that {@code findHeld} reads late. */
	private static final Duration BRIEF = Duration.ofMillis(300);

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
		this.holder = this.bench.throughProxy();
		this.stranger = this.bench.direct();
	}

	@AfterEach
	void disconnect() {
		this.bench.disconnect();
	}

	/**
	 * An extension of the sole hold to a longer lease, run twice, sets it once: the
	 * handle extends without error, Redis keeps at least what the handle counts on and no
	 * more than was asked, and the hold is still the lock's.
	 */
	@ParameterizedTest
	@EnumSource(HoldKind.class)
	void shouldKeepTheHoldWhenItsExtendIsResent(HoldKind kind) throws Exception {
		LockHandle held = this.holder.acquire(holding(kind).build());
		// Longer than LEASE: an extension only ever lengthens a lease.
		Duration extended = Duration.ofSeconds(45);
		this.bench.resent(kind.extendScript(), () -> held.extend(extended));
		// In this order: Redis's lease read first ends no earlier than the handle's
		// deadline, so it is at least what the handle reports after.
		long pttl = this.bench.pttl(kind.leaseKey(lockKey()));
		Duration left = held.remainingLease();
		assertThat(left).as("the lease the handle counts on, extended to %s", extended)
			.isPositive()
			.isLessThanOrEqualTo(extended);
		// ends_after (lib.lua) scores a member one ms past the lease.
		assertThat(pttl).as("the lease in Redis, extended to %s", extended)
			.isBetween(left.toMillis(), extended.toMillis() + 1);
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO)))
			.as("a stranger took the %s lock after its extension ran twice", kind)
			.isFalse();
		assertThat(held.isHeld()).as("still held after its extension ran twice").isTrue();
		held.close();
		assertFreeAndGone(kind, held.name());
	}

	/**
	 * An extension of one permit, run twice, extends that permit once: it takes no second
	 * permit, and the other holder's permit keeps its lease.
	 */
	@Test
	void shouldExtendOnlyItsOwnPermitWhenTheExtendIsResent() throws Exception {
		LockRequest permit = LockRequest.builder(this.scope)
			.key("k")
			.permits(3)
			.lease(LEASE)
			.waitTime(Duration.ZERO)
			.build();
		LockHandle mine = this.holder.acquire(permit);
		// A shorter lease than mine: the lowest score in the set is theirs.
		LockHandle theirs = this.stranger.acquire(permit.toBuilder().lease(Duration.ofSeconds(10)).build());
		String permits = ProtocolTimings.permitsKey(lockKey());
		Map<String, String> before = this.bench.scores(permits);
		String theirMember = this.bench.lowestScored(permits);
		this.bench.resent("extend-permit.lua", () -> mine.extend(Duration.ofSeconds(20)));
		Map<String, String> after = this.bench.scores(permits);
		assertThat(after.keySet()).as("the permits taken, after one was extended twice").isEqualTo(before.keySet());
		assertThat(after.get(theirMember)).as("the lease of the other holder's permit")
			.isEqualTo(before.get(theirMember));
		RedisLockTemplate third = this.bench.direct();
		Optional<LockHandle> thirdPermit = third.tryAcquire(permit);
		assertThat(thirdPermit).as("the third of three permits").isPresent();
		RedisLockTemplate fourth = this.bench.direct();
		assertThat(takes(fourth, permit)).as("a fourth permit of three").isFalse();
		mine.close();
		assertThat(takes(fourth, permit)).as("a permit, once the extended one was closed").isTrue();
		theirs.close();
		thirdPermit.get().close();
		this.bench.assertNoKeysLeft(this.stranger, mine.name());
	}

	/**
	 * An inner hold asks for a shorter lease, and the extension runs twice: the outer
	 * hold's lease must not shrink with it, so the lock stays taken past the inner lease,
	 * and is free at once when both are closed.
	 */
	@ParameterizedTest
	@EnumSource(value = HoldKind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldKeepTheOuterLeaseWhenAnInnerExtendIsResent(HoldKind kind) throws Exception {
		LockHandle outer = this.holder.acquire(holding(kind).build());
		LockHandle inner = this.holder.acquire(holding(kind).build());
		Duration shorter = Duration.ofMillis(300);
		this.bench.resent(kind.extendScript(), () -> inner.extend(shorter));
		long pttl = this.bench.pttl(kind.leaseKey(lockKey()));
		assertThat(pttl).as("the lease in Redis after the inner hold's extension to %s ran twice", shorter)
			.isGreaterThanOrEqualTo(outer.remainingLease().toMillis());
		Thread.sleep(shorter.plusMillis(200).toMillis());
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO)))
			.as("a stranger took the %s lock once the inner hold's shorter lease was over", kind)
			.isFalse();
		assertThat(outer.isHeld()).as("the outer hold, after the inner lease was over").isTrue();
		inner.close();
		outer.close();
		assertFreeAndGone(kind, outer.name());
	}

	/**
	 * The watchdog renews a read hold or a permit on its own, through its extend script;
	 * that renewal, re-sent, keeps the hold past its first lease, and its close frees it.
	 */
	@ParameterizedTest
	@EnumSource(value = HoldKind.class, names = { "READ", "PERMIT" })
	void shouldKeepAHoldWhoseWatchdogRenewalIsResent(HoldKind kind) throws Exception {
		// The next renewal comes a third of a lease after the re-sent one: long enough to
		// count the two runs before it.
		Duration lease = Duration.ofMillis(1500);
		long acquiredNanos = System.nanoTime();
		LockHandle held = this.holder.acquire(holding(kind).lease(lease).autoRenew(true).build());
		ReplyDrop drop = this.bench.arm(ResendBench.onScript(kind.extendScript()));
		this.bench.assertRanTwice(drop, lease);
		long pastFirstLease = acquiredNanos + lease.plusMillis(300).toNanos() - System.nanoTime();
		Thread.sleep(Math.max(0, pastFirstLease / 1_000_000));
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO)))
			.as("a stranger took the %s lock after its first lease, renewed since", kind)
			.isFalse();
		assertThat(held.isHeld()).as("still held, after its first lease").isTrue();
		held.close();
		assertFreeAndGone(kind, held.name());
	}

	/**
	 * {@code isHeld()} of a read hold or a permit asks Redis through a script; re-sent,
	 * it still answers yes for a live hold and no for one whose lease ran out.
	 */
	@ParameterizedTest
	@EnumSource(value = HoldKind.class, names = { "READ", "PERMIT" })
	void shouldAnswerIsHeldRightlyWhenItsCheckIsResent(HoldKind kind) throws Exception {
		// An owner of its own, so that the live hold below is no re-entry of it.
		LockHandle lapsed = this.holder
			.acquire(holding(kind).owner("lapsed-" + this.scope).lease(Duration.ofMillis(100)).build());
		Thread.sleep(200);
		assertThat(this.bench.resent("held-member.lua", lapsed::isHeld))
			.as("isHeld() of a %s hold whose lease ran out, re-sent", kind)
			.isFalse();
		LockHandle held = this.holder.acquire(holding(kind).build());
		assertThat(this.bench.resent("held-member.lua", held::isHeld)).as("isHeld() of a live %s hold, re-sent", kind)
			.isTrue();
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO)))
			.as("a stranger took the %s lock after its check ran twice", kind)
			.isFalse();
		held.close();
		assertFreeAndGone(kind, held.name());
	}

	/**
	 * {@code findHeld} reads the hold of a custom owner in one script; re-sent, it finds
	 * that hold, with its token and a deadline within Redis's lease, and not for another
	 * owner. The handle it returns releases the lock.
	 */
	@Test
	void shouldFindTheHoldOfACustomOwnerWhenTheReadIsResent() throws Exception {
		String owner = "job-" + this.scope;
		LockHandle original = this.bench.direct().acquire(holding(HoldKind.EXCLUSIVE).owner(owner).build());
		LockName name = original.name();
		Optional<LockHandle> found = this.bench.resent("read-hold.lua", () -> this.holder.findHeld(name, owner));
		assertThat(found).as("the hold of %s, found by a read that ran twice", owner).isPresent();
		long pttl = this.bench.pttl(lockKey());
		Duration left = found.get().remainingLease();
		assertThat(found.get().fencingToken()).as("the found hold's token").isEqualTo(original.fencingToken());
		assertThat(left).as("the found hold's lease").isPositive();
		assertThat(pttl).as("the lease in Redis, against the found hold's").isGreaterThanOrEqualTo(left.toMillis());
		assertThat(this.bench.resent("read-hold.lua", () -> this.holder.findHeld(name, "someone-else")))
			.as("the hold of an owner that holds nothing, found by a read that ran twice")
			.isEmpty();
		found.get().close();
		assertFreeAndGone(HoldKind.EXCLUSIVE, name);
	}

	/**
	 * {@code findHeld} whose reply comes after the lease it reports has ended reads
	 * again, and finds no hold once that lease is over: counted from before the read was
	 * sent, the lease it reported ended before the reply came. Before, it returned a
	 * handle already past its deadline.
	 */
	@Test
	void shouldFindNoHoldWhenTheReadsReplyComesAfterItsLease() throws Exception {
		String owner = "job-" + this.scope;
		LockHandle original = holdBriefly(owner);
		Optional<LockHandle> found = findHeldWith(lateRead(), original.name(), owner);
		assertThat(found).as("the hold of %s, read with a reply later than its %s lease", owner, BRIEF).isEmpty();
	}

	/**
	 * {@code findHeld} whose first reply comes after the lease it reports reads again: a
	 * hold extended meanwhile is found, with a deadline counted from the second read.
	 */
	@Test
	void shouldReadAgainWhenTheReadsReplyComesAfterItsLease() throws Exception {
		String owner = "job-" + this.scope;
		LockHandle original = holdBriefly(owner);
		Optional<LockHandle> found = findHeldWith(lateRead().afterRunning(() -> original.extend(LEASE)),
				original.name(), owner);
		assertThat(found).as("the hold of %s, extended while the first read's reply was late", owner).isPresent();
		assertThat(found.get().fencingToken()).as("the found hold's token").isEqualTo(original.fencingToken());
		assertThat(found.get().remainingLease()).as("the found hold's lease").isGreaterThan(BRIEF);
		found.get().close();
		assertFreeAndGone(HoldKind.EXCLUSIVE, original.name());
	}

	/**
	 * Take the lock directly for a custom owner, with a lease shorter than a
	 * {@link #lateRead()}'s delay.
	 */
	private LockHandle holdBriefly(String owner) {
		return this.bench.direct().acquire(holding(HoldKind.EXCLUSIVE).owner(owner).lease(BRIEF).build());
	}

	/**
	 * Return a fault that delivers {@code findHeld}'s read 200 ms after a {@link #BRIEF}
	 * lease would have ended.
	 */
	private static ReplyDrop lateRead() {
		return ResendBench.onScript("read-hold.lua").delayedBy(BRIEF.plusMillis(200));
	}

	/**
	 * Call {@code findHeld} through the proxy with its first read's reply held back, and
	 * check that the reply was held back and reported the owner's hold (four elements).
	 */
	private Optional<LockHandle> findHeldWith(ReplyDrop late, LockName name, String owner) throws Exception {
		ReplyDrop armed = this.bench.arm(late);
		Optional<LockHandle> found;
		try {
			found = this.holder.findHeld(name, owner);
		}
		finally {
			this.bench.disarm(armed);
		}
		assertThat(armed.awaitDropped(Duration.ofSeconds(1))).as("the read's reply was held back").isTrue();
		assertThat(armed.reply()).as("the held-back reply: the hold, read before its lease ended").startsWith("*4");
		return found;
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

	private String lockKey() {
		return this.stranger.lockKey(LockName.of(this.scope, "k"));
	}

	private LockRequest.Builder holding(HoldKind kind) {
		return kind.holding(LockRequest.builder(this.scope).key("k")).lease(LEASE);
	}

	private LockRequest excluded(HoldKind kind, Duration waitTime) {
		return kind.excluded(LockRequest.builder(this.scope).key("k")).lease(LEASE).waitTime(waitTime).build();
	}

}
