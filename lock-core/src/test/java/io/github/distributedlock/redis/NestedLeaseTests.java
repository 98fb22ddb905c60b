package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.server.ScriptRunner;
import io.github.distributedlock.test.RedisServerExtension;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Holds of one owner share their lock, so the lease of one must never end the lock while
 * another is live: a re-entry renewed by the watchdog, or extended, to a lease shorter
 * than the outer hold's has left must not shorten the lock (issue 22: an inner hold
 * renewed to 3 s let a stranger in while the outer hold still reported 15 s). The lock
 * must live at least as long as each live hold's {@code remainingLease()}, which is a
 * conservative estimate of the lease Redis keeps. How long the lock lives in Redis is
 * read as the longest {@code PTTL} of the lock's keys, whatever they are. No hold
 * shortens a lease, its own included, and a permit is a hold of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NestedLeaseTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static final Duration OUTER = Duration.ofSeconds(6);

	private static final Duration INNER = Duration.ofSeconds(1);

	/**
	 * How much shorter than a live hold's remaining lease the lock may be found, beyond
	 * the time that passed between the two readings (which each check measures, as a busy
	 * machine may take long): the local estimate and Redis's clock are rounded.
	 */
	private static final long TOLERANCE_MILLIS = 200;

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	private LettuceConnectionFactory factory;

	private RedisLockTemplate holder;

	private RedisLockTemplate stranger;

	private RedisLockTemplate third;

	private String scope;

	@BeforeAll
	void start() {
		this.factory = RedisConnections.standalone(redis.server());
		this.holder = template();
		this.stranger = template();
		this.third = template();
	}

	@AfterAll
	void stop() {
		this.templates.forEach(RedisLockTemplate::close);
		this.factory.destroy();
	}

	@BeforeEach
	void pickScope(TestInfo info) {
		// Parameterized tests share the method's name: the display name tells them apart.
		this.scope = info.getTestMethod().orElseThrow().getName() + "-"
				+ info.getDisplayName().replaceAll("[^A-Za-z0-9]", "");
	}

	/**
	 * The watchdog renews an inner hold (1 s lease) a third of a lease after it was
	 * taken; the inner hold closes after 600 ms; its last renewal's lease is over by 1.5
	 * s. The outer hold (6 s, not renewed) keeps the lock throughout.
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldKeepTheOuterLeaseWhileTheWatchdogRenewsAnInnerHold(Kind kind) throws Exception {
		LockHandle outer = this.holder.acquire(holding(kind).lease(OUTER).autoRenew(false).build());
		long start = System.nanoTime();
		LockHandle inner = this.holder.acquire(holding(kind).lease(INNER).autoRenew(true).build());
		Observations seen = new Observations(outer);
		sleepUntil(start, 450);
		seen.lockOutlivesOuterHold("after the inner hold's first renewal");
		sleepUntil(start, 600);
		inner.close();
		seen.lockOutlivesOuterHold("once the inner hold closed");
		sleepUntil(start, 1500);
		seen.lockOutlivesOuterHold("at 1.5 s");
		sleepUntil(start, 1900);
		seen.strangerRefused(kind, "at 1.9 s");
		seen.closeOuterThenAssertAll();
		assertFreeAndGone(kind, outer.name());
	}

	/**
	 * An inner hold extended to 1 s, then closed: the outer hold (6 s) keeps the lock.
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldKeepTheOuterLeaseWhenAnInnerHoldIsExtendedShorter(Kind kind) throws Exception {
		LockHandle outer = this.holder.acquire(holding(kind).lease(OUTER).build());
		LockHandle inner = this.holder.acquire(holding(kind).lease(OUTER).build());
		long start = System.nanoTime();
		inner.extend(INNER);
		Observations seen = new Observations(outer);
		seen.lockOutlivesOuterHold("once the inner hold was extended to " + INNER);
		inner.close();
		seen.lockOutlivesOuterHold("once the inner hold closed");
		sleepUntil(start, 1400);
		seen.lockOutlivesOuterHold("at 1.4 s");
		seen.strangerRefused(kind, "at 1.4 s");
		seen.closeOuterThenAssertAll();
		assertFreeAndGone(kind, outer.name());
	}

	/**
	 * An inner hold extended past the outer hold's lease, then closed: the outer hold's
	 * close still frees the lock at once.
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldFreeTheLockAtTheOuterCloseWhenAnInnerHoldWasExtendedLonger(Kind kind) {
		LockHandle outer = this.holder.acquire(holding(kind).lease(OUTER).build());
		LockHandle inner = this.holder.acquire(holding(kind).lease(OUTER).build());
		inner.extend(Duration.ofSeconds(30));
		inner.close();
		assertThat(takes(this.stranger, excluded(kind)))
			.as("a stranger took the %s lock with the outer hold open", kind)
			.isFalse();
		outer.close();
		assertFreeAndGone(kind, outer.name());
	}

	/**
	 * No command shortens a lease, not even the sole hold's own: an extension to less
	 * than the lease has left changes nothing, in Redis or in {@code remainingLease()}.
	 * Before, the sole hold set its lease outright, and a renewal or a late reply could
	 * then leave a holder believing in a lease Redis no longer had (the tests below).
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldKeepTheLeaseWhenItsOnlyHoldIsExtendedShorter(Kind kind) {
		long sent = System.nanoTime();
		LockHandle held = this.holder.acquire(holding(kind).lease(OUTER).build());
		held.extend(INNER);
		assertThat(lockTtlMillis(held.name()))
			.as("ms the %s lock lives after its only hold of %s was extended to %s", kind, OUTER, INNER)
			.isGreaterThan(leftAtLeast(OUTER, sent));
		assertThat(held.remainingLease().toMillis()).isGreaterThan(leftAtLeast(OUTER, sent));
		held.close();
		assertFreeAndGone(kind, held.name());
	}

	/**
	 * A hold renewed by the watchdog (300 ms lease) and extended to 6 s keeps the 6 s:
	 * the renewals every 100 ms after it must not bring the lease back to 300 ms, in
	 * Redis or in {@code remainingLease()} (the simulation found this: a renewal set the
	 * sole hold's lease outright).
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldKeepAnExtendedLeaseWhileTheWatchdogRenews(Kind kind) throws Exception {
		LockHandle held = this.holder.acquire(holding(kind).lease(Duration.ofMillis(300)).autoRenew(true).build());
		long start = System.nanoTime();
		held.extend(OUTER);
		sleepUntil(start, 450);
		assertThat(lockTtlMillis(held.name()))
			.as("ms the %s lock lives after renewals that followed an extension", kind)
			.isGreaterThan(leftAtLeast(OUTER, start));
		assertThat(held.remainingLease().toMillis()).isGreaterThan(leftAtLeast(OUTER, start));
		held.close();
		assertFreeAndGone(kind, held.name());
	}

	/**
	 * A renewal sent before an extension to less, whose reply is read after the
	 * extension's (the watchdog's thread was slow): the hold must not believe in a lease
	 * longer than Redis keeps. Before, the extension shortened the lease in Redis and the
	 * late reply lengthened it in {@code remainingLease()} (the simulation found this).
	 */
	@Test
	void shouldNotBelieveALateRenewalPastTheLeaseInRedis() {
		RedisLockHandle held = (RedisLockHandle) this.holder
			.acquire(holding(Kind.EXCLUSIVE).lease(OUTER).autoRenew(false).build());
		ScriptRunner scripts = new ScriptRunner(this.factory);
		held.hold().renewing();
		long sentNanos = System.nanoTime();
		assertThat(scripts.<List<Long>>execute(LockKind.renew(List.of(held.grant())))).containsExactly(1L);
		held.extend(INNER);
		held.hold().renewed(sentNanos, System.nanoTime());
		long remaining = held.remainingLease().toMillis();
		long readAt = System.nanoTime();
		assertThat(lockTtlMillis(held.name()))
			.as("ms the lock lives in Redis, with %d ms left of the hold's lease", remaining)
			.isGreaterThanOrEqualTo(remaining - millisSince(readAt) - TOLERANCE_MILLIS);
		held.close();
		assertFreeAndGone(Kind.EXCLUSIVE, held.name());
	}

	/**
	 * An extension that keeps a longer lease still writes it: the replica check
	 * ({@code ReplicaWait}) writes the hold again with an extension and waits for the
	 * replicas on that connection, and Redis 7.2 and later count for {@code WAIT} only
	 * what that connection wrote (found by an adversarial read of the lease fix).
	 */
	@Test
	void shouldWriteTheLeaseEvenWhenAnExtensionKeepsIt() {
		long sent = System.nanoTime();
		LockHandle held = this.holder.acquire(holding(Kind.EXCLUSIVE).lease(OUTER).build());
		long before = pexpireCalls();
		held.extend(INNER);
		assertThat(pexpireCalls() - before).as("PEXPIRE calls of an extension that keeps a longer lease").isEqualTo(1);
		assertThat(lockTtlMillis(held.name())).isGreaterThan(leftAtLeast(OUTER, sent));
		held.close();
	}

	/**
	 * The least that a lease set after {@code sentNanos} (a {@link System#nanoTime()}
	 * reading) can have left now, in ms. Read it after what it bounds.
	 */
	private static long leftAtLeast(Duration lease, long sentNanos) {
		return lease.toMillis() - millisSince(sentNanos) - TOLERANCE_MILLIS;
	}

	private static long millisSince(long nanoTime) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime) + 1;
	}

	private static long pexpireCalls() {
		String stats = String.valueOf(redis.server().command("INFO", "commandstats"));
		java.util.regex.Matcher calls = java.util.regex.Pattern.compile("cmdstat_pexpire:calls=(\\d+)").matcher(stats);
		return calls.find() ? Long.parseLong(calls.group(1)) : 0;
	}

	/**
	 * The same with permits: one renewed by the watchdog and extended keeps the longer
	 * lease.
	 */
	@Test
	void shouldKeepAnExtendedPermitWhileTheWatchdogRenews() throws Exception {
		LockHandle held = this.holder.acquire(permit().lease(Duration.ofMillis(300)).autoRenew(true).build());
		long start = System.nanoTime();
		held.extend(OUTER);
		sleepUntil(start, 450);
		assertThat(lockTtlMillis(held.name())).as("ms the permits live after renewals that followed an extension")
			.isGreaterThan(leftAtLeast(OUTER, start));
		held.close();
		assertThat(keys(held.name())).isEmpty();
	}

	/**
	 * Two permits of one owner, one with a 300 ms lease extended to 300 ms: once that one
	 * lapsed, the other is still held, so of two permits exactly one is free.
	 */
	@Test
	void shouldNeverShortenAnotherPermitWhenOneIsExtended() throws Exception {
		LockHandle kept = this.holder.acquire(permit().build());
		LockHandle extended = this.holder.acquire(permit().lease(Duration.ofMillis(300)).build());
		extended.extend(Duration.ofMillis(300));
		assertOnePermitLeft(kept, extended, System.nanoTime() + Duration.ofMillis(600).toNanos());
	}

	/**
	 * The same with a permit renewed by the watchdog (600 ms lease), then closed.
	 */
	@Test
	void shouldNeverShortenAnotherPermitWhenOneIsRenewed() throws Exception {
		LockHandle kept = this.holder.acquire(permit().build());
		long start = System.nanoTime();
		LockHandle renewed = this.holder.acquire(permit().lease(Duration.ofMillis(600)).autoRenew(true).build());
		sleepUntil(start, 300);
		renewed.close();
		assertOnePermitLeft(kept, renewed, start + Duration.ofMillis(1000).toNanos());
	}

	private void assertOnePermitLeft(LockHandle kept, LockHandle other, long atNanos) throws InterruptedException {
		Thread.sleep(Math.max(0, (atNanos - System.nanoTime()) / 1_000_000));
		Optional<LockHandle> freed = this.stranger.tryAcquire(permit().build());
		assertThat(freed).as("the permit whose lease ended or that was closed").isPresent();
		assertThat(takes(this.third, permit().build())).as("a third permit of two, while %s is held", kept).isFalse();
		assertThat(kept.isHeld()).as("the permit that was neither extended nor renewed").isTrue();
		kept.close();
		freed.get().close();
		// Its lease may have ended without a close: then close reports it lost.
		catchThrowableOfType(LockLeaseLostException.class, other::close);
		assertThat(keys(kept.name())).as("keys of %s left in Redis", kept.name()).isEmpty();
	}

	private LockRequest.Builder permit() {
		return LockRequest.builder(this.scope).key("k").permits(2).lease(OUTER).waitTime(Duration.ZERO);
	}

	/**
	 * Return how long the longest-lived key of the lock lives: {@link Long#MAX_VALUE} for
	 * a key without expiry, -2 when there is no key.
	 */
	private long lockTtlMillis(LockName name) {
		long longest = -2;
		for (String key : keys(name)) {
			long ttl = (Long) redis.server().command("PTTL", key);
			longest = Math.max(longest, (ttl == -1) ? Long.MAX_VALUE : ttl);
		}
		return longest;
	}

	private List<String> keys(LockName name) {
		List<String> keys = new ArrayList<>();
		for (Object key : (List<?>) redis.server().command("KEYS", this.stranger.lockKey(name) + "*")) {
			keys.add(String.valueOf(key));
		}
		return keys;
	}

	private void assertFreeAndGone(Kind kind, LockName name) {
		assertThat(takes(this.stranger, excluded(kind)))
			.as("a stranger took the %s lock once every hold was closed", kind)
			.isTrue();
		assertThat(keys(name)).as("keys of %s left in Redis", name).isEmpty();
	}

	private static boolean takes(RedisLockTemplate template, LockRequest request) {
		Optional<LockHandle> taken = template.tryAcquire(request);
		taken.ifPresent(LockHandle::close);
		return taken.isPresent();
	}

	private static void sleepUntil(long startNanos, long millis) throws InterruptedException {
		long left = startNanos + Duration.ofMillis(millis).toNanos() - System.nanoTime();
		Thread.sleep(Math.max(0, left / 1_000_000));
	}

	private LockRequest.Builder holding(Kind kind) {
		return kind.holding(LockRequest.builder(this.scope).key("k"));
	}

	private LockRequest excluded(Kind kind) {
		return kind.excluded(LockRequest.builder(this.scope).key("k")).waitTime(Duration.ZERO).build();
	}

	private RedisLockTemplate template() {
		RedisLockTemplate template = RedisLockTemplate.builder(this.factory).build();
		this.templates.add(template);
		return template;
	}

	/**
	 * What a test saw of a lock with an outer hold, recorded as it went and judged at the
	 * end, once the outer hold is closed: judging takes no time from either hold's lease
	 * (soft assertions are slow the first time: seconds on a busy machine, past the outer
	 * hold's 6 s), and every failure is reported.
	 */
	private final class Observations {

		private final LockHandle outer;

		private final List<Consumer<SoftAssertions>> checks = new ArrayList<>();

		Observations(LockHandle outer) {
			this.outer = outer;
		}

		/**
		 * The lock lives in Redis at least as long as the outer hold says it has left.
		 */
		void lockOutlivesOuterHold(String when) {
			long remaining = this.outer.remainingLease().toMillis();
			long readAt = System.nanoTime();
			long ttl = lockTtlMillis(this.outer.name());
			long between = millisSince(readAt);
			this.checks.add((softly) -> softly.assertThat(ttl)
				.as("ms the lock lives in Redis %s, with %d ms left of the outer hold's lease", when, remaining)
				.isGreaterThanOrEqualTo(remaining - between - TOLERANCE_MILLIS));
		}

		/**
		 * A stranger cannot take the lock.
		 */
		void strangerRefused(Kind kind, String when) {
			boolean took = takes(NestedLeaseTests.this.stranger, excluded(kind));
			Duration remaining = this.outer.remainingLease();
			this.checks.add((softly) -> softly.assertThat(took)
				.as("a stranger took the %s lock %s, while the outer hold reported %s left", kind, when, remaining)
				.isFalse());
		}

		/**
		 * Close the outer hold, then judge what was seen and that the close found the
		 * hold live.
		 */
		void closeOuterThenAssertAll() {
			Throwable closing = catchThrowable(this.outer::close);
			SoftAssertions softly = new SoftAssertions();
			this.checks.forEach((check) -> check.accept(softly));
			softly.assertThat(closing).as("closing the outer hold").isNull();
			softly.assertAll();
		}

	}

	/**
	 * A kind of lock, and the request of a stranger that its holds exclude.
	 */
	enum Kind {

		EXCLUSIVE, READ, FAIR;

		LockRequest.Builder holding(LockRequest.Builder request) {
			return switch (this) {
				case EXCLUSIVE -> request;
				case READ -> request.mode(LockMode.READ);
				case FAIR -> request.fair(true);
			};
		}

		LockRequest.Builder excluded(LockRequest.Builder request) {
			return switch (this) {
				case EXCLUSIVE -> request;
				case READ -> request.mode(LockMode.WRITE);
				case FAIR -> request.fair(true);
			};
		}

	}

}
