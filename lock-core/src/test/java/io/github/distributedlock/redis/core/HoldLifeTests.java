package io.github.distributedlock.redis.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link HoldLife}: a hold's lease end, renewal schedule and minimum hold, on a
 * clock the test gives.
 */
class HoldLifeTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	@Test
	void renewsEveryThirdOfTheLeaseFromWhenTheCommandWasSent() {
		HoldLife life = new HoldLife(grant(900, 0, 1_000 * MS), 1_005 * MS);
		assertThat(life.leaseEndNanos()).isEqualTo(1_900 * MS);
		assertThat(life.nextRenewalNanos()).isEqualTo(1_300 * MS);
		life.renewed(1_300 * MS);
		assertThat(life.leaseEndNanos()).isEqualTo(2_200 * MS);
		assertThat(life.nextRenewalNanos()).isEqualTo(1_600 * MS);
	}

	@Test
	void aRenewalsLateReplyNeverShortensTheLeaseButMovesTheSchedule() {
		HoldLife life = new HoldLife(grant(900, 0, 0), 0);
		life.extended(500 * MS, 10_000);
		life.renewed(300 * MS);
		assertThat(life.leaseEndNanos()).isEqualTo(10_500 * MS);
		assertThat(life.nextRenewalNanos()).isEqualTo(600 * MS);
	}

	@Test
	void aRenewalWithoutAnswerIsRetriedWhileTheLeaseLastsThenTheHoldIsLost() {
		HoldLife life = new HoldLife(grant(900, 0, 0), 0);
		assertThat(life.renewalFailed(899 * MS)).isFalse();
		assertThat(life.nextRenewalNanos()).isEqualTo(899 * MS + HoldLife.RENEWAL_RETRY_NANOS);
		assertThat(life.renewalFailed(900 * MS)).isTrue();
		assertThat(life.isOver(900 * MS)).isTrue();
		assertThat(life.remainingNanos(901 * MS)).isZero();
	}

	@Test
	void theMinimumHoldCountsWholeMillisecondsFromTheGrantingReply() {
		HoldLife life = new HoldLife(grant(1_000, 200, 0), 10 * MS);
		assertThat(life.minimumHoldLeftMillis(10 * MS)).isEqualTo(200);
		assertThat(life.minimumHoldLeftMillis(10 * MS + 1_999_999)).isEqualTo(199);
		assertThat(life.minimumHoldLeftMillis(210 * MS)).isZero();
		assertThat(life.minimumHoldLeftMillis(500 * MS)).isZero();
		assertThat(new HoldLife(grant(1_000, 0, 0), 0).minimumHoldLeftMillis(0)).isZero();
		assertThat(life.heldNanos(60 * MS)).isEqualTo(50 * MS);
	}

	@Test
	void aPassedHoldKeepsTheLeaseEndItSharesAndItsOwnMinimumHold() {
		// The end the first hold's own life would make, from its send and lease.
		LeaseEnd shared = new LeaseEnd(1_000 * MS, 900);
		HoldLife first = new HoldLife(grant(900, 0, 1_000 * MS), 1_005 * MS, shared);
		first.renewed(1_300 * MS);
		HoldLife passed = new HoldLife(grant(900, 100, 1_000 * MS), 1_400 * MS, shared);
		assertThat(passed.leaseEndNanos()).as("the end as is, not counted from the pass").isEqualTo(2_200 * MS);
		assertThat(passed.nextRenewalNanos()).as("a period after the last confirmed send").isEqualTo(1_600 * MS);
		passed.renewed(1_600 * MS);
		assertThat(first.leaseEndNanos()).as("a renewal of the passed hold moves the shared end").isEqualTo(2_500 * MS);
		first.extended(1_700 * MS, 300);
		assertThat(passed.leaseEndNanos()).as("a shorter extension never shortens it").isEqualTo(2_500 * MS);
		assertThat(passed.minimumHoldLeftMillis(1_450 * MS)).as("counted from the pass").isEqualTo(50);
	}

	private static Grant grant(long leaseMillis, long holdAtLeastMillis, long sentNanos) {
		String lockKey = "p:{orders:1}";
		LockSpec spec = new LockSpec(LockName.of("orders", "1"), lockKey, lockKey + ":released", LockKind.EXCLUSIVE, 0,
				lockKey, leaseMillis, 0, false, true, holdAtLeastMillis, 5_000,
				new WaitMode(WaitStrategy.PUBSUB, List.of(lockKey + ":released"), 100 * MS), true, null);
		return new Grant(spec, "owner", 1, "hold", sentNanos, false, Duration.ZERO, 1);
	}

}
