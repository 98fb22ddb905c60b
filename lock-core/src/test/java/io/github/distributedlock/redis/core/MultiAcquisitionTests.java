package io.github.distributedlock.redis.core;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MultiAcquisition}: each decision of one all-or-nothing acquisition, on
 * a virtual clock, with no Redis ({@code MultiLockTests} and {@code LateGrantTests} run
 * the driver against real servers).
 */
class MultiAcquisitionTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private final long[] now = { 1_000 * MS };

	private final NanoClock clock = () -> this.now[0];

	private final LockSpec a = spec("a", 300);

	private final LockSpec b = spec("b", 5_000);

	@Test
	void aGrantOfEveryLockCountsItsLeasesFromBeforeTheAttemptWasSent() {
		MultiAcquisition acquisition = acquisition(5_000 * MS, true);
		long sent = acquisition.next();
		this.now[0] += 299 * MS;
		MultiAcquisition.Outcome outcome = acquisition.replied(sent, granted(7, 9));
		assertThat(outcome).isInstanceOf(MultiAcquisition.Granted.class);
		MultiAcquisition.Granted granted = (MultiAcquisition.Granted) outcome;
		assertThat(granted.late()).isFalse();
		assertThat(granted.grants()).extracting(Grant::token).containsExactly(7L, 9L);
		assertThat(granted.grants()).extracting(Grant::sentNanos).containsOnly(1_000 * MS);
		assertThat(granted.grants()).extracting(Grant::hold).containsOnly(acquisition.hold());
		assertThat(granted.grants()).extracting(Grant::waited).containsOnly(false);
	}

	@Test
	void aGrantWhoseShortestLeaseEndedBeforeTheReplyIsLateAndRetriedWhileTimeIsLeft() {
		MultiAcquisition acquisition = acquisition(5_000 * MS, true);
		long sent = acquisition.next();
		this.now[0] += 300 * MS;
		MultiAcquisition.Granted late = (MultiAcquisition.Granted) acquisition.replied(sent, granted(7, 9));
		assertThat(late.late()).as("lock a's 300 ms lease is over").isTrue();
		assertThat(acquisition.retriesLateGrant()).isTrue();
		this.now[0] += 5_000 * MS;
		assertThat(acquisition.retriesLateGrant()).as("once the wait time is over").isFalse();
	}

	@Test
	void aTryOnceRetriesOneLateGrant() {
		MultiAcquisition acquisition = acquisition(0, true);
		for (int i = 1; i <= 2; i++) {
			long sent = acquisition.next();
			this.now[0] += 400 * MS;
			assertThat(((MultiAcquisition.Granted) acquisition.replied(sent, granted(7, 9))).late()).isTrue();
			assertThat(acquisition.retriesLateGrant()).as("after late grant %d", i).isEqualTo(i == 1);
		}
	}

	/**
	 * A wait that ends on late grants names the lock whose lease a round trip outlasted,
	 * and says so.
	 */
	@Test
	void aWaitThatEndsOnGrantsTooLateNamesTheShortestLease() {
		MultiAcquisition acquisition = acquisition(0, true);
		for (int i = 1; i <= 2; i++) {
			long sent = acquisition.next();
			this.now[0] += 400 * MS;
			acquisition.replied(sent, granted(7, 9));
		}
		LockTimeoutException timeout = acquisition.timeout();
		assertThat(timeout.getLockName()).isEqualTo(this.a.name());
		assertThat(timeout).hasMessageContaining("Redis granted it 2 times in a row")
			.hasMessageContaining("after its lease of 300 ms had ended (the last took 400 ms)");
	}

	@Test
	void aBlockedAttemptFilesTheRequestWithTheLockThatBlockedIt() {
		MultiAcquisition acquisition = acquisition(10_000 * MS, true);
		long sent = acquisition.next();
		MultiAcquisition.Outcome outcome = acquisition.replied(sent, blocked(1, 2_000));
		assertThat(outcome).isEqualTo(new MultiAcquisition.Blocked(this.b));
		assertThat(acquisition.request()).isNotNull();
		assertThat(acquisition.filed()).containsExactly(this.b);
		assertThat(acquisition.sleepNanos()).isEqualTo(2_000 * MS + Deadline.LEASE_END_MARGIN_NANOS);
		assertThat(acquisition.timeout().getLockName()).isEqualTo(this.b.name());
	}

	@Test
	void withoutHandOffNothingIsFiledAndTheSleepIsBoundedByTheWaitTime() {
		MultiAcquisition acquisition = acquisition(1_000 * MS, false);
		acquisition.replied(acquisition.next(), blocked(0, 60_000));
		assertThat(acquisition.request()).isNull();
		assertThat(acquisition.filed()).isEmpty();
		assertThat(acquisition.sleepNanos()).isEqualTo(1_000 * MS);
	}

	@Test
	void aSleepEndsInTimeToFileTheRequestAgain() {
		// Not every half claim, as a single lock's waiter: each attempt reads every lock.
		MultiAcquisition acquisition = acquisition(-1, true);
		acquisition.replied(acquisition.next(), blocked(0, 60_000));
		assertThat(acquisition.sleepNanos()).isEqualTo(HandOffRequest.REFILE_NANOS);
	}

	@Test
	void aLockHeldByTheOwnerWithoutReentryIsASelfDeadlock() {
		MultiAcquisition acquisition = acquisition(5_000 * MS, true);
		MultiAcquisition.Outcome outcome = acquisition.replied(acquisition.next(),
				new MultiAcquireResult(-1, 0, new long[0], 500));
		assertThat(outcome).isInstanceOf(MultiAcquisition.Failed.class);
		assertThat(((MultiAcquisition.Failed) outcome).error()).isInstanceOf(LockSelfDeadlockException.class)
			.hasMessageContaining("multi:a");
		assertThat(acquisition.filed()).isEmpty();
	}

	@Test
	void theWaitIsOverForATryOnceAndOnceTheWaitTimeRanOut() {
		MultiAcquisition once = acquisition(0, true);
		assertThat(once.replied(once.next(), blocked(0, 500))).isSameAs(MultiAcquisition.Over.INSTANCE);
		MultiAcquisition waiting = acquisition(1_000 * MS, true);
		long sent = waiting.next();
		this.now[0] += 1_000 * MS;
		assertThat(waiting.replied(sent, blocked(0, 500))).isSameAs(MultiAcquisition.Over.INSTANCE);
	}

	private MultiAcquisition acquisition(long waitNanos, boolean handOff) {
		return new MultiAcquisition(List.of(this.a, this.b), "owner-1", waitNanos, true, handOff, this.clock,
				UniqueIds.ofProcess());
	}

	private static MultiAcquireResult granted(long... tokens) {
		return new MultiAcquireResult(1, 0, tokens, -1);
	}

	private static MultiAcquireResult blocked(int index, long holderTtlMillis) {
		return new MultiAcquireResult(0, index, new long[0], holderTtlMillis);
	}

	private static LockSpec spec(String key, long leaseMillis) {
		String lockKey = "p:{multi:" + key + "}";
		WaitMode waitMode = new WaitMode(WaitStrategy.PUBSUB, List.of(lockKey + ":released"), 100 * MS);
		return new LockSpec(LockName.of("multi", key), lockKey, lockKey + ":released", LockKind.EXCLUSIVE, 0, lockKey,
				leaseMillis, 0, false, false, 0, 5_000, waitMode, true, null);
	}

}
