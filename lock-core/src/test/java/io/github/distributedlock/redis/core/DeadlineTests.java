package io.github.distributedlock.redis.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Deadline}, without Redis.
 */
class DeadlineTests {

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	private static final LockName NAME = LockName.of("orders", "7");

	@Test
	void shouldCountTheWaitTimeDownFromItsStart() {
		long start = System.nanoTime();
		Deadline deadline = new Deadline(10 * SECOND, start);
		assertThat(deadline.isIndefinite()).isFalse();
		assertThat(deadline.isTryOnce()).isFalse();
		assertThat(deadline.remainingNanos(start + 4 * SECOND)).isEqualTo(6 * SECOND);
		assertThat(deadline.remainingNanos(start + 11 * SECOND)).isEqualTo(-SECOND);
		assertThat(deadline.remainingMillis()).isBetween(9_000L, 10_000L);
		assertThat(deadline.remainingBudgetNanos()).isBetween(9 * SECOND, 10 * SECOND);
	}

	@Test
	void shouldNeverRunOutWhenIndefinite() {
		Deadline deadline = new Deadline(-1, System.nanoTime());
		assertThat(deadline.isIndefinite()).isTrue();
		assertThat(deadline.remainingNanos(System.nanoTime() + 1000 * SECOND)).isEqualTo(Long.MAX_VALUE);
		assertThat(deadline.remainingMillis()).isEqualTo(-1);
		assertThat(deadline.remainingBudgetNanos()).isEqualTo(-1);
		deadline.restartAt(System.nanoTime() - 1000 * SECOND);
		assertThat(deadline.remainingNanos()).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void shouldTryOnceAndNeverReportANegativeBudgetWhenTheWaitIsZero() {
		Deadline deadline = new Deadline(0, System.nanoTime() - SECOND);
		assertThat(deadline.isTryOnce()).isTrue();
		assertThat(deadline.remainingNanos()).isNegative();
		assertThat(deadline.remainingMillis()).isZero();
		assertThat(deadline.remainingBudgetNanos()).isZero();
	}

	@Test
	void shouldTellTheScriptsThatAWaiterAtItsDeadlineStillWaits() {
		// 0 is a try to the scripts, which then leave no mark for a release to tell; a
		// waiter may wait on after its deadline (a restart on progress).
		Deadline over = new Deadline(SECOND, System.nanoTime() - 2 * SECOND);
		assertThat(over.remainingMillis()).isEqualTo(1);
		Deadline lastMillisecond = new Deadline(SECOND, System.nanoTime() - SECOND + SECOND / 2000);
		assertThat(lastMillisecond.remainingMillis()).isEqualTo(1);
	}

	@Test
	void shouldRestartFromWhenTheLockChangedHands() {
		long start = System.nanoTime();
		Deadline deadline = new Deadline(10 * SECOND, start);
		deadline.restartAt(start + 3 * SECOND);
		assertThat(deadline.remainingNanos(start + 4 * SECOND)).isEqualTo(9 * SECOND);
		assertThat(deadline.restartIfLater(start + 2 * SECOND)).as("an earlier change keeps the deadline").isFalse();
		assertThat(deadline.remainingNanos(start + 4 * SECOND)).isEqualTo(9 * SECOND);
		assertThat(deadline.restartIfLater(start + 5 * SECOND)).isTrue();
		assertThat(deadline.remainingNanos(start + 5 * SECOND)).isEqualTo(10 * SECOND);
	}

	@Test
	void shouldSleepUntilTheHoldersLeaseEndsWhenThatComesFirst() {
		Deadline deadline = new Deadline(10 * SECOND, System.nanoTime());
		assertThat(deadline.untilHolderLeaseEnds()).as("unknown holder").isEqualTo(Long.MAX_VALUE);
		assertThat(deadline.timeout(NAME, null).getHolderRemainingLease()).isNull();
		deadline.holderSeen(2000, System.nanoTime());
		assertThat(deadline.untilHolderLeaseEnds()).isBetween(SECOND, 2 * SECOND + Deadline.LEASE_END_MARGIN_NANOS);
		assertThat(deadline.sleepNanos()).as("bounded by the holder's lease, not the 10 s wait")
			.isBetween(SECOND, 2 * SECOND + Deadline.LEASE_END_MARGIN_NANOS);
		assertThat(deadline.timeout(NAME, null).getHolderRemainingLease()).isBetween(Duration.ofSeconds(1),
				Duration.ofSeconds(2));
	}

	@Test
	void shouldSleepForTheWaitTimeLeftWhenTheHoldersLeaseEndsLater() {
		Deadline deadline = new Deadline(SECOND, System.nanoTime());
		deadline.holderSeen(60_000, System.nanoTime());
		assertThat(deadline.sleepNanos()).isLessThanOrEqualTo(SECOND);
	}

	@Test
	void shouldWakeAtTheMarginWhenTheHoldersLeaseIsAlreadyOver() {
		Deadline deadline = new Deadline(10 * SECOND, System.nanoTime());
		deadline.holderSeen(100, System.nanoTime() - SECOND);
		assertThat(deadline.untilHolderLeaseEnds()).isEqualTo(Deadline.LEASE_END_MARGIN_NANOS);
		assertThat(deadline.timeout(NAME, null).getHolderRemainingLease()).isEqualTo(Duration.ZERO);
	}

	@Test
	void shouldTreatANegativeHolderLeaseAsUnknown() {
		Deadline deadline = new Deadline(10 * SECOND, System.nanoTime());
		deadline.holderSeen(-1, System.nanoTime());
		assertThat(deadline.untilHolderLeaseEnds()).isEqualTo(Long.MAX_VALUE);
		assertThat(deadline.timeout(NAME, null).getHolderRemainingLease()).isNull();
	}

	@Test
	void shouldLetAHintShortenButNeverLengthenTheHoldersLease() {
		long now = System.nanoTime();
		Deadline deadline = new Deadline(60 * SECOND, now);
		deadline.holderSeen(10_000, now);
		deadline.holderMayEndSooner(30_000, now);
		assertThat(deadline.untilHolderLeaseEnds()).as("a later end is ignored")
			.isLessThanOrEqualTo(10 * SECOND + SECOND);
		deadline.holderMayEndSooner(2_000, now);
		assertThat(deadline.untilHolderLeaseEnds()).isLessThanOrEqualTo(2 * SECOND + Deadline.LEASE_END_MARGIN_NANOS);
	}

	@Test
	void shouldTakeAHintWhenTheHoldersLeaseIsUnknown() {
		Deadline deadline = new Deadline(60 * SECOND, System.nanoTime());
		deadline.holderMayEndSooner(2_000, System.nanoTime());
		assertThat(deadline.untilHolderLeaseEnds()).isLessThanOrEqualTo(2 * SECOND + Deadline.LEASE_END_MARGIN_NANOS);
	}

	@Test
	void shouldNameTheLockAndTheHoldersLeaseInTheTimeout() {
		Deadline deadline = new Deadline(0, System.nanoTime());
		deadline.holderSeen(5_000, System.nanoTime());
		LockTimeoutException timeout = deadline.timeout(LockName.of("orders", "7"), null);
		assertThat(timeout.getLockName()).isEqualTo(LockName.of("orders", "7"));
		assertThat(timeout.getHolderRemainingLease()).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(5));
		assertThat(timeout.getWaited()).isGreaterThanOrEqualTo(Duration.ZERO);
	}

}
