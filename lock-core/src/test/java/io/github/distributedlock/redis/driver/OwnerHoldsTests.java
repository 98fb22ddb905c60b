package io.github.distributedlock.redis.driver;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the hold registry keeps of one owner's holds on one lock ({@link OwnerHolds}).
 */
class OwnerHoldsTests {

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	private final ManualPort port = new ManualPort();

	private final Renewals watchdog = new Renewals(this.port, () -> false);

	/**
	 * A lease-setting command without a handle (a replica check's count) that got no
	 * reply, while an earlier lease of the owner was still bounded: once that bound
	 * passed, nothing is left to wait for. Before, the sweep kept the entry for good, and
	 * rescheduled itself every second (found by the simulation of driver/Acquisitions).
	 */
	@Test
	void shouldSweepAnOwnerWithNoHandleLeftOnceItsBoundPassed() {
		long now = this.port.nanoTime();
		OwnerHolds<?> holds = OwnerHolds.none().bound(now + SECOND).sending().failed();
		assertThat(holds.orNull(now)).as("kept while its bound lasts").isNotNull();
		assertThat(holds.swept(now + 2 * SECOND, this.watchdog)).isNull();
	}

	/**
	 * A command without a reply still keeps a live handle's entry: Redis may set a lease
	 * that nothing bounds until the handle is closed.
	 */
	@Test
	void shouldKeepAnOwnerWithAnUnansweredCommandWhileACommandIsInFlight() {
		long now = this.port.nanoTime();
		OwnerHolds<?> holds = OwnerHolds.none().sending().sending().failed();
		assertThat(holds.swept(now + 2 * SECOND, this.watchdog)).isNotNull();
	}

}
