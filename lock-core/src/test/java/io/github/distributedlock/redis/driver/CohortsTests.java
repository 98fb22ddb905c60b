package io.github.distributedlock.redis.driver;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.LeaseEnd;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Cohorts}: who may open a cohort; a lock's entry lives while pinned or
 * open, and a loss heard between an opening's send and its grant refuses the cohort
 * (docs/design/cohorting.md, rule 4). No Redis.
 */
class CohortsTests {

	private static final String LOCK = "p:{orders:1}";

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final CohortLimits LIMITS = new CohortLimits(16, 20 * MS);

	private static final String OWNER = "instance:7";

	private final Cohorts cohorts = TestLines.cohortsOff();

	@Test
	void aGrantedOpeningOpensTheLocksCohortUntilItEnds() {
		Cohorts.Opening opening = this.cohorts.pin(LOCK);
		Cohort cohort = open(opening);
		assertThat(cohort).isNotNull();
		assertThat(this.cohorts.current(LOCK)).isSameAs(cohort);
		assertThat(this.cohorts.current("p:{orders:2}")).isNull();
		this.cohorts.ended(LOCK, cohort);
		assertThat(cohort.isEnded()).isTrue();
		assertThat(this.cohorts.current(LOCK)).isNull();
		assertThat(TestLines.entries(this.cohorts)).as("entries left").isZero();
	}

	@Test
	void aLossHeardBetweenTheSendAndTheGrantOpensACohortThatPassesNothing() {
		Cohorts.Opening opening = this.cohorts.pin(LOCK);
		this.cohorts.lost(LOCK);
		Cohort refused = open(opening);
		assertThat(refused.mayPass(0, 0)).isEqualTo(Cohort.Refusal.LOSS_HEARD);
		assertThat(this.cohorts.current(LOCK)).as("still the lock's, for its re-entries").isSameAs(refused);
		this.cohorts.ended(LOCK, refused);
		assertThat(TestLines.entries(this.cohorts)).as("entries left").isZero();
		// A loss of a lock nobody pinned leaves nothing behind.
		this.cohorts.lost(LOCK);
		assertThat(TestLines.entries(this.cohorts)).isZero();
		assertThat(open(this.cohorts.pin(LOCK)).mayPass(0, 0)).as("a later opening").isEqualTo(Cohort.Refusal.NONE);
	}

	@Test
	void aLossHeardWhileOpenStopsEveryFurtherPass() {
		Cohort cohort = open(this.cohorts.pin(LOCK));
		this.cohorts.lost("p:{orders:2}");
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
		this.cohorts.lost(LOCK);
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.LOSS_HEARD);
	}

	@Test
	void aLaterGrantReplacesTheLocksCohortWhichPassesNoMore() {
		Cohorts.Opening first = this.cohorts.pin(LOCK);
		Cohorts.Opening second = this.cohorts.pin(LOCK);
		assertThat(second.number()).isGreaterThan(first.number());
		Cohort cohort = open(first);
		Cohort later = open(second);
		assertThat(cohort.mayPass(0, 0)).as("Redis granted the lock again: its hold is gone")
			.isEqualTo(Cohort.Refusal.LOSS_HEARD);
		assertThat(this.cohorts.current(LOCK)).isSameAs(later);
		this.cohorts.ended(LOCK, cohort);
		assertThat(this.cohorts.current(LOCK)).as("an older cohort's end").isSameAs(later);
		this.cohorts.ended(LOCK, later);
		assertThat(TestLines.entries(this.cohorts)).isZero();
	}

	@Test
	void anAdoptedHoldIsTheLocksCohortAndPassesNothing() {
		Cohort open = open(this.cohorts.pin(LOCK));
		Cohort adopted = this.cohorts.adopt(LOCK, "instance:cohort:1", 2_000, 0, new LeaseEnd(0, 60_000));
		assertThat(open.mayPass(0, 0)).isEqualTo(Cohort.Refusal.LOSS_HEARD);
		assertThat(adopted.mayPass(0, 0)).isEqualTo(Cohort.Refusal.ENDED);
		assertThat(adopted.number()).isGreaterThan(open.number());
		assertThat(this.cohorts.current(LOCK)).isSameAs(adopted);
		this.cohorts.ended(LOCK, adopted);
		assertThat(TestLines.entries(this.cohorts)).isZero();
	}

	@Test
	void anOpeningSettlesOnceAndTouchesNoOtherPin() {
		Cohorts.Opening stale = this.cohorts.pin(LOCK);
		this.cohorts.unpin(stale);
		assertThat(TestLines.entries(this.cohorts)).isZero();
		Cohorts.Opening fresh = this.cohorts.pin(LOCK);
		Cohorts.Opening other = this.cohorts.pin(LOCK);
		assertThat(open(stale)).as("settled").isNull();
		this.cohorts.unpin(stale);
		Cohort cohort = open(fresh);
		assertThat(cohort).isNotNull();
		// Settled: a second unpin takes no other opening's pin.
		this.cohorts.unpin(fresh);
		this.cohorts.unpin(fresh);
		this.cohorts.ended(LOCK, cohort);
		assertThat(TestLines.entries(this.cohorts)).as("the other opening's pin").isOne();
		this.cohorts.unpin(other);
		assertThat(TestLines.entries(this.cohorts)).isZero();
	}

	@Test
	void aGrantOfOneTokenOpensACohortThatPassesNothing() {
		Cohorts.Opening opening = this.cohorts.pin(LOCK);
		Cohort single = this.cohorts.open(opening, "instance:cohort:1", 1_000, 1, 0, 20_000_000,
				new LeaseEnd(0, 60_000));
		assertThat(single.mayPass(0, 0)).isEqualTo(Cohort.Refusal.ENDED);
		assertThat(this.cohorts.current(LOCK)).isSameAs(single);
	}

	@Test
	void onlyAnExclusiveLockWithAGeneratedOwnerAndWaitersBehindOpensACohort() {
		LockSpec spec = spec(LockKind.EXCLUSIVE, 60);
		assertThat(Cohorts.mayOpen(spec, true, OWNER, LIMITS, true)).isTrue();
		assertThat(Cohorts.mayOpen(spec, true, OWNER, CohortLimits.OFF, true)).as("cohorts off").isFalse();
		assertThat(Cohorts.mayOpen(spec, true, OWNER, LIMITS, false)).as("nobody behind").isFalse();
		assertThat(Cohorts.mayOpen(spec, false, OWNER, LIMITS, true)).as("hand-off off").isFalse();
		assertThat(Cohorts.mayOpen(spec, true, LockOwners.custom("job"), LIMITS, true)).as("a custom owner").isFalse();
		assertThat(Cohorts.mayOpen(spec(LockKind.FAIR, 60), true, OWNER, LIMITS, true)).as("a fair lock").isFalse();
		assertThat(Cohorts.mayOpen(spec(LockKind.READ, 60), true, OWNER, LIMITS, true)).as("a read lock").isFalse();
		WaitMode polling = new WaitMode(WaitStrategy.POLLING, List.of(), 100 * MS);
		LockSpec polls = spec(LockKind.EXCLUSIVE, 60, polling);
		assertThat(Cohorts.mayOpen(polls, true, OWNER, LIMITS, true)).as("a polling line hears no loss").isFalse();
		// The lease must be at least three time limits.
		assertThat(Cohorts.mayOpen(spec(LockKind.EXCLUSIVE, 59), true, OWNER, LIMITS, true)).isFalse();
		LockSpec term = new LockSpec(LockName.of(LeaderInitiator.LOCK_SCOPE, "billing"), spec.lockKey(),
				spec.releaseChannel(), LockKind.EXCLUSIVE, 0, spec.queueId(), 60, 5_000 * MS, false, true, 0, 5_000,
				spec.waitMode(), true, null);
		assertThat(Cohorts.mayOpen(term, true, OWNER, LIMITS, true)).as("a leader's term").isFalse();
	}

	private Cohort open(Cohorts.Opening opening) {
		return this.cohorts.open(opening, "instance:cohort:" + opening.number(), 1_000, 16, 0, 20_000_000,
				new LeaseEnd(0, 60_000));
	}

	private static LockSpec spec(LockKind kind, long leaseMillis) {
		return spec(kind, leaseMillis, new WaitMode(WaitStrategy.PUBSUB, List.of("p:{orders:1}:released"), 100 * MS));
	}

	private static LockSpec spec(LockKind kind, long leaseMillis, WaitMode waitMode) {
		String lockKey = "p:{orders:1}";
		return new LockSpec(LockName.of("orders", "1"), lockKey, lockKey + ":released", kind, 0, lockKey, leaseMillis,
				5_000 * MS, false, true, 0, 5_000, waitMode, true, null);
	}

}
