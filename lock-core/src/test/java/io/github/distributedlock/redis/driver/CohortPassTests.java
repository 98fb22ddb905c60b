package io.github.distributedlock.redis.driver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LeaseEnd;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The driver's side of a pass in memory (docs/design/cohorting.md, rules 4 and 5): a head
 * promoted while its line's cohort holds the lock sends nothing, takes the pass, or
 * attempts once the cohort ends. No Redis: the port records each script and the test
 * answers it as Redis would, on a virtual clock.
 */
class CohortPassTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final String COHORT_OWNER = "instance:cohort:1";

	private final ManualPort port = new ManualPort();

	private LocalLines lines = TestLines.of(this.port, 0);

	private final DriverCommands commands = new DriverCommands(this.port, 60_000, true, new NoAttemptWatch());

	private final LockSpec spec = spec();

	@Test
	void aHeadPromotedUnderTheCohortSendsNothingAndTakesThePassWithTheBlocksNextToken() {
		Cohort cohort = openedWithOneBehind();
		Outcome behind = this.waiters.get(1);
		assertThat(this.port.runs).as("the head promoted under the cohort sends nothing").hasSize(3);
		assertThat(passed(line().pass(cohort, releasing(), 0))).isTrue();
		Grant passed = behind.granted;
		assertThat(passed).isNotNull();
		assertThat(passed.owner()).isEqualTo(COHORT_OWNER);
		assertThat(passed.cohort()).isSameAs(cohort);
		assertThat(passed.token()).isEqualTo(500);
		assertThat(passed.shownToken()).isEqualTo(501);
		assertThat(passed.hold()).isEqualTo("hold-of-the-cohort");
		assertThat(this.port.runs).as("nor does the pass").hasSize(3);
		assertThat(passed(line().pass(cohort, releasing(), 0))).as("nobody left to take it").isFalse();
		assertThat(cohort.holders()).isEqualTo(2);
	}

	@Test
	void theEndOfTheCohortWakesTheHeadAndAnOlderCohortsEndWakesNobody() {
		Cohort cohort = openedWithOneBehind();
		Cohort older = new Cohort(cohort.number() - 1, COHORT_OWNER, 400, 16, 0, 20 * MS, new LeaseEnd(0, 30_000));
		line().cohortEnded(older);
		assertThat(this.port.runs).hasSize(3);
		line().cohortEnded(cohort);
		assertThat(this.port.runs).as("the head attempts").hasSize(4);
		assertThat(this.port.runs.get(3).call().argv()).as("with its request").anyMatch((arg) -> arg.contains(":"));
		assertThat(line().cohort()).isNull();
		assertThat(passed(line().pass(cohort, releasing(), 0))).as("an ended cohort passes nothing").isFalse();
	}

	@Test
	void aCancelledHeadTakesNoPass() {
		Cohort cohort = openedWithOneBehind();
		this.waiters.get(1).acquisition.cancel();
		assertThat(passed(line().pass(cohort, releasing(), 0))).isFalse();
		assertThat(this.waiters.get(1).granted).isNull();
		assertThat(cohort.holders()).isOne();
	}

	@Test
	void aWaiterJoiningTheEmptyLineOfAHoldingCohortSleepsUnderIt() {
		Cohort cohort = openedWithOneBehind();
		assertThat(passed(line().pass(cohort, releasing(), 0))).isTrue();
		Outcome late = start("owner-3");
		assertThat(this.port.runs).as("it joined the hot line and sent nothing").hasSize(3);
		assertThat(passed(line().pass(cohort, releasing(), 0))).isTrue();
		assertThat(late.granted).isNotNull();
		assertThat(late.granted.shownToken()).isEqualTo(502);
	}

	@Test
	void aHeadPastItsTimeLimitAttemptsOnlyWhenTheCohortEnds() {
		Cohort cohort = openedWithOneBehind();
		this.port.now += 20 * MS;
		assertThat(passed(line().pass(cohort, releasing(), 0))).as("at the time limit").isFalse();
		assertThat(this.port.runs).hasSize(3);
		line().cohortEnded(cohort);
		assertThat(this.port.runs).hasSize(4);
	}

	@Test
	void aHeadWithAWaiterBehindOpensACohortUnderItsOwnOwnerAndTheNextHeadSleepsUnderIt() {
		Outcome opener = twoInLineBehindAHolder();
		ManualPort.Run opening = this.port.runs.get(3);
		assertThat(opening.call().argv().get(0)).isEqualTo("instance:cohort:1");
		assertThat(opening.call().argv()).as("the block asked for").hasSize(11).last().isEqualTo("16");
		this.port.reply(3, List.of(1L, 600L, 16L));
		Grant grant = opener.granted;
		assertThat(grant).isNotNull();
		Cohort cohort = grant.cohort();
		assertThat(cohort).isNotNull();
		assertThat(grant.owner()).isEqualTo("instance:cohort:1");
		assertThat(line().cohort()).isSameAs(cohort);
		assertThat(this.port.runs).as("the next head sends nothing").hasSize(4);
		assertThat(passed(line().pass(cohort, grant, 0))).isTrue();
		assertThat(this.waiters.get(2).granted.shownToken()).isEqualTo(601);
		assertThat(this.lines.cohorts().current(this.spec.lockKey())).isSameAs(cohort);
	}

	@Test
	void theHeadWokenByTheCohortsEndOpensTheNextOneWhenAWaiterIsBehindIt() {
		Outcome opener = twoInLineBehindAHolder();
		start("owner-4");
		this.port.reply(3, List.of(1L, 600L, 16L));
		Cohort cohort = opener.granted.cohort();
		assertThat(this.port.runs).hasSize(4);
		this.lines.cohortEnded(this.spec.lockKey(), cohort);
		assertThat(this.lines.cohorts().current(this.spec.lockKey())).isNull();
		assertThat(this.port.runs).as("the woken head attempts").hasSize(5);
		assertThat(this.port.runs.get(4).call().argv().get(0)).isEqualTo("instance:cohort:2");
		assertThat(this.port.runs.get(4).call().argv()).last().isEqualTo("16");
	}

	@Test
	void anAcquisitionKeptOutOfCohortsNeitherOpensNorSleepsUnderOne() {
		useCohorts();
		start("owner-1");
		this.port.reply(0, List.of(0L, 3L, 500L));
		Outcome kept = new Outcome();
		kept.acquisition = new SingleAcquisition(this.spec, "owner-2", false, true, this.commands, this.lines,
				Completion.of((grant) -> kept.granted = grant, (error) -> kept.error = error));
		kept.acquisition.keepOutOfCohorts();
		this.waiters.add(kept);
		kept.acquisition.start();
		this.port.reply(1, List.of(0L, 3L, 500L));
		this.port.listeners.get(0).subscribed();
		start("owner-3");
		this.port.reply(2, List.of(1L, 550L));
		assertThat(this.port.runs).hasSize(4);
		assertThat(this.port.runs.get(3).call().argv().get(0)).as("no cohort owner").isEqualTo("owner-2");
		this.port.reply(3, List.of(1L, 560L));
		assertThat(kept.granted.cohort()).isNull();
		assertThat(this.port.runs).as("the next head's attempt").hasSize(5);
		this.port.reply(4, List.of(1L, 570L));
		Cohorts.Opening opening = this.lines.cohorts().pin(this.spec.lockKey());
		Cohort other = this.lines.cohorts()
			.open(opening, COHORT_OWNER, 700, 16, this.port.now, 20 * MS, new LeaseEnd(this.port.now, 30_000));
		line().cohortOpened(other);
		Outcome late = new Outcome();
		late.acquisition = new SingleAcquisition(this.spec, "owner-5", false, true, this.commands, this.lines,
				Completion.of((grant) -> late.granted = grant, (error) -> late.error = error));
		late.acquisition.keepOutOfCohorts();
		int sent = this.port.runs.size();
		late.acquisition.start();
		assertThat(this.port.runs).as("it attempts under the cohort").hasSize(sent + 1);
	}

	@Test
	void aGrantOfOneTokenOpensNothing() {
		Outcome opener = twoInLineBehindAHolder();
		this.port.reply(3, List.of(1L, 600L));
		Cohort single = opener.granted.cohort();
		assertThat(single.isEnded()).as("passes nothing").isTrue();
		assertThat(single.isHeldBy("owner-2")).as("but routes its holder's re-entries").isTrue();
		assertThat(this.lines.cohorts().current(this.spec.lockKey())).isSameAs(single);
		assertThat(line().cohort()).isNull();
		assertThat(this.port.runs).as("the next head attempts").hasSize(5);
	}

	@Test
	void aLossHeardBetweenThePinAndTheGrantOpensNothing() {
		Outcome opener = twoInLineBehindAHolder();
		this.port.listeners.get(0).message("forced".getBytes(StandardCharsets.US_ASCII));
		this.port.reply(3, List.of(1L, 600L, 16L));
		assertThat(opener.granted.cohort().mayPass(this.port.now, 0)).isEqualTo(Cohort.Refusal.LOSS_HEARD);
		assertThat(line().cohort()).isNull();
	}

	@Test
	void anOpeningCancelledInFlightReleasesItsGrantAndLeavesNoPin() {
		Outcome opener = twoInLineBehindAHolder();
		opener.acquisition.cancel();
		this.port.reply(3, List.of(1L, 600L, 16L));
		assertThat(opener.granted).isNull();
		assertThat(this.port.runs.get(4).operation()).isEqualTo("release");
		assertThat(this.port.runs.get(4).call().argv().get(0)).isEqualTo("instance:cohort:1");
		assertThat(TestLines.entries(this.lines.cohorts())).isZero();
		assertThat(line().cohort()).isNull();
	}

	@Test
	void theLastHeadOfALineOpensNothing() {
		useCohorts();
		Outcome first = start("owner-1");
		this.port.reply(0, List.of(0L, 3L, 500L));
		this.port.listeners.get(0).subscribed();
		assertThat(this.port.runs.get(1).call().argv().get(0)).isEqualTo("owner-1");
		this.port.reply(1, List.of(1L, 600L));
		assertThat(first.granted).isNotNull();
		assertThat(TestLines.entries(this.lines.cohorts())).isZero();
	}

	/**
	 * Three in line with cohorts on; the first wins with one token, and the second,
	 * promoted with the third behind it, sends its opening attempt (run 3).
	 */
	private Outcome twoInLineBehindAHolder() {
		useCohorts();
		start("owner-1");
		this.port.reply(0, List.of(0L, 3L, 500L));
		start("owner-2");
		this.port.reply(1, List.of(0L, 3L, 500L));
		this.port.listeners.get(0).subscribed();
		start("owner-3");
		assertThat(this.port.runs).hasSize(3);
		assertThat(this.port.runs.get(2).call().argv().get(0)).as("the head, alone when promoted").isEqualTo("owner-1");
		this.port.reply(2, List.of(1L, 550L));
		assertThat(this.waiters.get(0).granted).isNotNull();
		assertThat(this.port.runs).hasSize(4);
		return this.waiters.get(1);
	}

	private void useCohorts() {
		this.lines = new LocalLines(this.port, 0,
				new Cohorts(CohortLimits.of(16, Duration.ofMillis(20)), (n) -> "instance:cohort:" + n));
	}

	private final List<Outcome> waiters = new ArrayList<>();

	/**
	 * A head that wins the lock with a block of 16 while a waiter is behind it; the test
	 * opens the cohort on the line as the opening will, before the grant completes.
	 */
	private Cohort openedWithOneBehind() {
		Outcome first = start("owner-1");
		this.port.reply(0, List.of(0L, 3L, 500L));
		Outcome second = start("owner-2");
		this.port.reply(1, List.of(0L, 3L, 500L));
		assertThat(this.port.listeners).hasSize(1);
		this.port.listeners.get(0).subscribed();
		assertThat(this.port.runs).as("the head's attempt").hasSize(3);
		Cohorts.Opening opening = this.lines.cohorts().pin(this.spec.lockKey());
		Cohort cohort = this.lines.cohorts()
			.open(opening, COHORT_OWNER, 500, 16, this.port.now, 20 * MS, new LeaseEnd(this.port.now, 30_000));
		assertThat(cohort).isNotNull();
		line().cohortOpened(cohort);
		this.port.reply(2, List.of(1L, 500L, 16L));
		assertThat(first.granted).isNotNull();
		assertThat(second.granted).isNull();
		return cohort;
	}

	private Grant releasing() {
		return new Grant(this.spec, COHORT_OWNER, 500, "hold-of-the-cohort", this.port.now, true, Duration.ZERO, 2);
	}

	private LocalLine line() {
		LocalLine line = this.lines.hot(this.spec);
		assertThat(line).isNotNull();
		return line;
	}

	private Outcome start(String owner) {
		Outcome outcome = new Outcome();
		outcome.acquisition = new SingleAcquisition(this.spec, owner, false, true, this.commands, this.lines,
				Completion.of((grant) -> outcome.granted = grant, (error) -> outcome.error = error));
		this.waiters.add(outcome);
		outcome.acquisition.start();
		return outcome;
	}

	private static LockSpec spec() {
		String lockKey = "p:{cohort:1}";
		return new LockSpec(LockName.of("cohort", "1"), lockKey, lockKey + ":released", LockKind.EXCLUSIVE, 0, lockKey,
				30_000, 5_000 * MS, false, false, 0, 5_000,
				new WaitMode(WaitStrategy.PUBSUB, List.of(lockKey + ":released"), 100 * MS), true, null);
	}

	private static final class Outcome {

		SingleAcquisition acquisition;

		@Nullable Grant granted;

		@Nullable Throwable error;

	}

	/**
	 * Run a pass's hand-over, as the releasing hold does once it told of its release.
	 */
	private static boolean passed(@Nullable Runnable handOver) {
		if (handOver == null) {
			return false;
		}
		handOver.run();
		return true;
	}

}
