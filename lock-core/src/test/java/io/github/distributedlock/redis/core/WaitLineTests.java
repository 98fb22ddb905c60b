package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each message asks of a line of waiters, as both engines and the simulation hear it
 * through the one {@link WaitLine}.
 */
class WaitLineTests {

	private static final HandOffRequest MINE = HandOffRequest.of(0, UniqueIds.ofProcess());

	@Test
	void aReservationForThisLinesRequestCallsItToTry() {
		WaitLine line = new WaitLine(false, false);
		line.expect(MINE);
		assertThat(line.hear(reserved(MINE.member()), 100)).isEqualTo(WaitLine.Heard.TRY);
		assertThat(line.lastReservation()).isNull();
		assertThat(line.lastProgressNanos()).isEqualTo(100);
		line.forget(MINE);
		assertThat(line.hear(reserved(MINE.member()), 200)).isEqualTo(WaitLine.Heard.RESERVED_ELSEWHERE);
	}

	@Test
	void aReservationForSomeoneElseIsKeptAsAHint() {
		WaitLine line = new WaitLine(false, false);
		assertThat(line.hear(reserved("1500:elsewhere"), 100)).isEqualTo(WaitLine.Heard.RESERVED_ELSEWHERE);
		assertThat(line.lastReservation()).isEqualTo(new WaitLine.Reservation(1500, 100));
		assertThat(line.plainSignals()).isZero();
		assertThat(line.signals()).as("counted by the engine's line as it wakes its waiters").isZero();
	}

	@Test
	void plainReleasesCallToTryUnlessKeyspaceEventsTellWhenTheLockIsFree() {
		WaitLine pubSub = new WaitLine(false, false);
		WaitLine keyspace = new WaitLine(true, false);
		assertThat(pubSub.hear(parse("41"), 1)).isEqualTo(WaitLine.Heard.TRY);
		assertThat(keyspace.hear(parse("41"), 1)).isEqualTo(WaitLine.Heard.NOTHING);
		assertThat(keyspace.hear(parse("expired"), 1)).isEqualTo(WaitLine.Heard.TRY);
		assertThat(pubSub.plainSignals()).isOne();
		assertThat(keyspace.plainSignals()).isEqualTo(2);
	}

	@Test
	void readersIgnoreTheLastReaderLeaving() {
		assertThat(new WaitLine(false, true).hear(parse("readers-left"), 1)).isEqualTo(WaitLine.Heard.NOTHING);
		assertThat(new WaitLine(false, false).hear(parse("readers-left"), 1)).isEqualTo(WaitLine.Heard.TRY);
	}

	@Test
	void aFairReleaseNamesTheNextWaiterOnceAndCountsAsNoPlainRelease() {
		WaitLine line = new WaitLine(false, false);
		assertThat(line.hear(parse("next:abc123"), 1)).isEqualTo(WaitLine.Heard.TRY);
		assertThat(line.plainSignals()).isZero();
		assertThat(line.consumeAddressed("other")).isFalse();
		assertThat(line.consumeAddressed("abc123")).isTrue();
		assertThat(line.consumeAddressed("abc123")).as("forgotten once consumed").isFalse();
		for (int i = 0; i < 300; i++) {
			line.hear(parse("next:w" + i), 1);
		}
		assertThat(line.consumeAddressed("w0")).as("the oldest of a bounded set").isFalse();
		assertThat(line.consumeAddressed("w299")).isTrue();
	}

	@Test
	void signalsCountEveryWakeUpAndRetriesOnlyCallsToTry() {
		WaitLine line = new WaitLine(false, false);
		line.signal(true);
		line.signal(false);
		line.signal(true);
		assertThat(line.signals()).isEqualTo(3);
		assertThat(line.retrySignals()).isEqualTo(2);
	}

	@Test
	void anOlderChangeOfHandsNeverMovesTheLatestBack() {
		WaitLine line = new WaitLine(false, false);
		long later = Long.MAX_VALUE - 5;
		line.markProgress(later);
		line.markProgress(later - 1_000);
		assertThat(line.lastProgressNanos()).isEqualTo(later);
		line.markProgress(later + 10);
		assertThat(line.lastProgressNanos()).as("across wrap-around").isEqualTo(later + 10);
	}

	@Test
	void theLatestHolderSightingIsKept() {
		WaitLine line = new WaitLine(false, false);
		line.holderSeen(HolderSighting.of(500, 20));
		line.holderSeen(HolderSighting.of(900, 10));
		line.holderSeen(null);
		assertThat(line.holder()).isEqualTo(new HolderSighting(500, 20));
	}

	private static ReleaseMessage reserved(String member) {
		return parse(ReleaseMessage.Reserved.PREFIX + member);
	}

	private static ReleaseMessage parse(String body) {
		return ReleaseMessage.parse(body.getBytes(StandardCharsets.UTF_8));
	}

}
