package io.github.distributedlock.redis.driver;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.LeaseEnd;
import io.github.distributedlock.redis.core.LockSpec;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a {@link LocalLine} reports as a loss: a message that its lock may have left its
 * holder without a release, and each gap in its subscription, in which one may have been
 * missed (docs/design/cohorting.md, rule 4). No Redis: the line is told of its
 * subscription as a port would tell it.
 */
class LocalLineTests {

	@Test
	void aForcedReleaseAKeyGoneAndEachGapAreLossesAndNothingElseIs() {
		AtomicInteger losses = new AtomicInteger();
		LocalLine line = new LocalLine("q", System::nanoTime, true, false, losses::incrementAndGet);
		line.subscribed();
		for (String body : new String[] { "41", "reserved:1500:elsewhere", "next:abc123", "readers-left", "permit",
				"intent-dropped", "hset", "expire" }) {
			line.onMessage(bytes(body));
		}
		assertThat(losses).as("after the first subscription and messages of no loss").hasValue(0);
		for (String body : new String[] { "forced", "del", "expired", "evicted" }) {
			line.onMessage(bytes(body));
		}
		assertThat(losses).as("after a forced release and each key gone").hasValue(4);
		line.subscribed();
		assertThat(losses).as("after a re-subscription").hasValue(5);
		line.lostSubscription(false);
		assertThat(losses).as("after the subscription was lost").hasValueGreaterThan(5);
	}

	@Test
	void theLinesOfALockTellItsCohortsOfALoss() {
		Scheduler scheduler = Schedulers.newSingle("cohort-loss-test");
		LocalLines lines = TestLines.of(new SchedulerPort(scheduler), 0);
		try {
			LockSpec spec = LocalLinesTests.spec("cohort");
			Cohorts.Opening opening = lines.cohorts().pin(spec.lockKey());
			Cohort cohort = lines.cohorts()
				.open(opening, "instance:cohort:1", 1_000, 16, 0, 20_000_000, new LeaseEnd(0, 60_000));
			LocalLine line = lines.join(spec);
			line.onMessage(bytes("41"));
			assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
			line.onMessage(bytes("forced"));
			assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.LOSS_HEARD);
			lines.leave(line);
		}
		finally {
			lines.close();
			scheduler.dispose();
		}
	}

	private static byte[] bytes(String body) {
		return body.getBytes(StandardCharsets.US_ASCII);
	}

}
