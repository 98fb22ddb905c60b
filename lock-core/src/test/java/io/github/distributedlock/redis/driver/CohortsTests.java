package io.github.distributedlock.redis.driver;

import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.LeaseEnd;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Cohorts}: a lock's entry lives while pinned or open, and a loss heard
 * between an opening's send and its grant refuses the cohort (docs/design/cohorting.md,
 * rule 4). No Redis.
 */
class CohortsTests {

	private static final String LOCK = "p:{orders:1}";

	private final Cohorts cohorts = new Cohorts();

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
		assertThat(this.cohorts.size()).as("entries left").isZero();
	}

	@Test
	void aLossHeardBetweenTheSendAndTheGrantRefusesTheCohort() {
		Cohorts.Opening opening = this.cohorts.pin(LOCK);
		this.cohorts.lost(LOCK);
		assertThat(open(opening)).isNull();
		assertThat(this.cohorts.size()).as("entries left").isZero();
		// A loss of a lock nobody pinned leaves nothing behind.
		this.cohorts.lost(LOCK);
		assertThat(this.cohorts.size()).isZero();
		assertThat(open(this.cohorts.pin(LOCK))).as("a later opening").isNotNull();
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
	void oneCohortPerLockAtATime() {
		Cohorts.Opening first = this.cohorts.pin(LOCK);
		Cohorts.Opening second = this.cohorts.pin(LOCK);
		assertThat(second.number()).isGreaterThan(first.number());
		Cohort cohort = open(first);
		assertThat(open(second)).isNull();
		assertThat(this.cohorts.current(LOCK)).isSameAs(cohort);
		this.cohorts.ended(LOCK, cohort);
		assertThat(this.cohorts.size()).isZero();
	}

	@Test
	void aStaleOpeningTouchesNoNewerEntryOfItsLock() {
		Cohorts.Opening stale = this.cohorts.pin(LOCK);
		this.cohorts.unpin(stale);
		assertThat(this.cohorts.size()).isZero();
		Cohorts.Opening fresh = this.cohorts.pin(LOCK);
		assertThat(open(stale)).isNull();
		this.cohorts.unpin(stale);
		assertThat(this.cohorts.size()).as("the fresh opening's pin").isOne();
		assertThat(open(fresh)).isNotNull();
	}

	private Cohort open(Cohorts.Opening opening) {
		return this.cohorts.open(opening, "instance:cohort:" + opening.number(), 1_000, 16, 0, 20_000_000,
				new LeaseEnd(0, 60_000));
	}

}
