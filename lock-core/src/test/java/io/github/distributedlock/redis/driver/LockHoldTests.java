package io.github.distributedlock.redis.driver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LeaseEnd;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hold's replies that come after its release: the hold is gone from Redis because it
 * was released, not lost. No Redis: the port records each script and the test answers it
 * as Redis would.
 */
class LockHoldTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private final ManualPort port = new ManualPort();

	private final List<String> events = new ArrayList<>();

	@Test
	void anExtensionRefusedAfterTheReleaseReportsNoLostLease() {
		LockHold hold = new LockHold(grant(), this.port.now, true, new Recorded(), null);
		List<Throwable> extended = new ArrayList<>();
		hold.extend(this.port, 60_000, Completion.of((result) -> extended.add(null), extended::add));
		hold.release(this.port, Completion.of((left) -> this.events.add("released " + left), (error) -> {
		}));
		this.port.reply(1, 0L);
		this.port.reply(0, -1L);
		assertThat(extended).singleElement().isInstanceOf(LockLeaseLostException.class);
		assertThat(hold.isLost()).as("lost").isFalse();
		assertThat(this.events).containsExactly("released 0");
	}

	/**
	 * The hold was passed in memory while its extension was in flight: the refusal is no
	 * loss of the closed handle, but the cohort's hold may be gone, so no more passes.
	 */
	@Test
	void anExtensionRefusedAfterAPassStopsTheCohortsPasses() {
		Recording lines = new Recording();
		Grant grant = grant();
		Cohort cohort = new Cohort(1, "owner-1", 7, 16, this.port.now, 20 * MS, new LeaseEnd(this.port.now, 30_000));
		Grant ofCohort = new Grant(grant.spec(), "owner-1", 7, "hold-1", this.port.now, true, Duration.ZERO, 1, 7,
				cohort);
		LockHold hold = new LockHold(ofCohort, this.port.now, true, new Recorded(), lines);
		List<Throwable> extended = new ArrayList<>();
		hold.extend(this.port, 60_000, Completion.of((result) -> extended.add(null), extended::add));
		hold.release(this.port, Completion.of((left) -> this.events.add("released " + left), (error) -> {
		}));
		assertThat(this.port.runs).as("the pass sends nothing").hasSize(1);
		this.port.reply(0, -2L);
		assertThat(extended).singleElement()
			.isInstanceOfSatisfying(LockLeaseLostException.class,
					(lost) -> assertThat(lost.getMessage()).contains("extended after it was released"));
		assertThat(hold.isLost()).as("lost").isFalse();
		assertThat(this.events).containsExactly("released 0");
		assertThat(lines.heard).containsExactly("pass", "handed over", "lost");
	}

	@Test
	void anExtensionRefusedBeforeTheReleaseReportsALostLease() {
		LockHold hold = new LockHold(grant(), this.port.now, true, new Recorded(), null);
		hold.extend(this.port, 60_000, Completion.of((result) -> {
		}, (error) -> {
		}));
		this.port.reply(0, -2L);
		assertThat(hold.isLost()).as("lost").isTrue();
		assertThat(this.events).containsExactly("lost");
	}

	private Grant grant() {
		String lockKey = "p:{hold:1}";
		LockSpec spec = new LockSpec(LockName.of("hold", "1"), lockKey, lockKey + ":released", LockKind.EXCLUSIVE, 0,
				lockKey, 30_000, 5_000 * MS, false, false, 0, 5_000,
				new WaitMode(WaitStrategy.PUBSUB, List.of(lockKey + ":released"), 100 * MS), true, null);
		return new Grant(spec, "owner-1", 7, "hold-1", this.port.now, false, Duration.ZERO, 1);
	}

	/** Lines that take every pass and record what the hold told them. */
	private static final class Recording implements CohortRelease {

		final List<String> heard = new ArrayList<>();

		@Override
		public Runnable pass(Grant releasing, long minimumHoldLeftMillis) {
			this.heard.add("pass");
			return () -> this.heard.add("handed over");
		}

		@Override
		public void ended(Grant grant) {
			this.heard.add("ended");
		}

		@Override
		public void lost(Grant grant) {
			this.heard.add("lost");
		}

	}

	private final class Recorded extends NoHoldEvents {

		@Override
		public void lost(LockHold hold, boolean goneFromRedis) {
			LockHoldTests.this.events.add("lost");
		}

	}

}
