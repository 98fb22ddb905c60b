package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a fair waiter tries again, as the blocking and reactive engines (and the
 * simulation) decide it through the one {@link FairTurn}.
 */
class FairTurnTests {

	private static final String OWNER = "owner-a";

	private final LockSpec spec = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("test", 0), false, true,
			new RedisServerFeatures(null, false, false), 6_000)
		.resolve(LockRequest.builder("orders").key("1").fair(true).waitTime(Duration.ofSeconds(10)).build());

	@Test
	void aReleaseNamingThisWaiterIsItsTurnOnce() {
		FairTurn turn = new FairTurn(this.spec, OWNER, "h1");
		WaitLine line = new WaitLine(false, false);
		turn.attempting(line);
		turn.replied(2);
		line.hear(parse("next:" + LockOwners.digest("owner-b") + "|h1"), 1);
		assertThat(turn.isTurn(line)).as("another waiter was named").isFalse();
		line.hear(parse("next:" + LockOwners.digest(OWNER) + "|h0"), 1);
		assertThat(turn.isTurn(line)).as("another acquisition of the owner was named").isFalse();
		line.hear(parse("next:" + LockOwners.digest(OWNER) + "|h1"), 2);
		assertThat(turn.isTurn(line)).isTrue();
		assertThat(turn.isTurn(line)).as("the naming is used up").isFalse();
	}

	@Test
	void aReleaseNamingAnyoneWakesTheWaitersOfACustomOwner() {
		FairTurn custom = new FairTurn(this.spec, LockOwners.custom("shared"), "h1");
		FairTurn thread = new FairTurn(this.spec, OWNER, "h2");
		WaitLine line = new WaitLine(false, false);
		custom.attempting(line);
		custom.replied(2);
		thread.attempting(line);
		thread.replied(3);
		// Another acquisition of the custom owner, in this process or another, is next:
		// its turn is this one's too.
		line.hear(parse("next:" + LockOwners.digest(LockOwners.custom("shared")) + "|h0"), 1);
		assertThat(thread.isTurn(line)).isFalse();
		assertThat(custom.isTurn(line)).isTrue();
		custom.attempting(line);
		assertThat(custom.isTurn(line)).as("heard before the last attempt").isFalse();
	}

	@Test
	void aPlainReleaseIsTheTurnOfTheFirstWaiterOnly() {
		FairTurn first = new FairTurn(this.spec, OWNER, "h1");
		FairTurn second = new FairTurn(this.spec, "owner-b", "h2");
		WaitLine line = new WaitLine(false, false);
		first.attempting(line);
		first.replied(0);
		second.attempting(line);
		second.replied(1);
		assertThat(first.isTurn(line)).as("nothing heard since the attempt").isFalse();
		line.hear(parse("1001"), 1);
		assertThat(second.isTurn(line)).isFalse();
		assertThat(first.isTurn(line)).isTrue();
		first.attempting(line);
		assertThat(first.isTurn(line)).as("heard before the last attempt").isFalse();
	}

	@Test
	void itSleepsAtMostAThirdOfTheWaiterTimeout() {
		FairTurn turn = new FairTurn(this.spec, OWNER, "h1");
		Acquisition acquisition = new Acquisition(this.spec, OWNER, false, () -> 0L, UniqueIds.ofProcess());
		// The wait allows a longer sleep, so the heartbeat is what bounds it.
		assertThat(acquisition.deadline().sleepNanos()).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(2_000));
		assertThat(turn.sleepNanos(acquisition.deadline())).isEqualTo(TimeUnit.MILLISECONDS.toNanos(2_000));
	}

	private static ReleaseMessage parse(String body) {
		return ReleaseMessage.parse(body.getBytes(StandardCharsets.UTF_8));
	}

}
