package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fair lock's queue holds one entry per acquisition, not per owner. Two acquisitions of
 * one owner (a thread that gave up and tries again, or a custom owner shared by two
 * processes) may wait at once; the late leave of the first must not take the second's
 * place, nor may the first's place serve the second. Found by the simulation, with
 * callers that leave attempts in flight: a late {@code leave-fair.lua} removed the
 * owner's newer entry, and a waiter that came after it was served first.
 */
class FairQueueEntryTests {

	private static final String LOCK = "fq:{q}";

	private static final String QUEUE = LockKeys.fairQueue(LOCK);

	private static final String HEARTBEATS = LockKeys.fairQueueHeartbeats(LOCK);

	private static final String CHANNEL = LockKeys.releaseChannel(LOCK);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldKeepTheOwnersNewerPlaceWhenItsEarlierAttemptLeavesLate() {
		assertThat(acquire("holder", "h0").get(0)).isEqualTo(1L);
		// The owner waits, gives up, and waits again before its leave has run.
		assertThat(acquire("owner", "first").get(0)).isEqualTo(0L);
		assertThat(acquire("owner", "second").get(0)).isEqualTo(0L);
		assertThat(acquire("later", "h3").get(0)).isEqualTo(0L);
		leave("owner", "first");
		String token = String.valueOf(redis.server().command("HGET", LOCK, "token"));
		assertThat(release("holder", token, "h0")).isZero();
		// The owner's second wait came before the later waiter's: its turn.
		assertThat(acquire("later", "h3").get(0)).isEqualTo(0L);
		assertThat(acquire("owner", "second").get(0)).isEqualTo(1L);
	}

	@Test
	void shouldQueueASecondAttemptOfTheOwnerBehindThoseAlreadyWaiting() {
		assertThat(acquire("holder", "h0").get(0)).isEqualTo(1L);
		assertThat(acquire("owner", "first").get(0)).isEqualTo(0L);
		assertThat(acquire("later", "h2").get(0)).isEqualTo(0L);
		// The owner's second acquisition arrives after the later waiter: it does not take
		// its first acquisition's place.
		List<?> second = acquire("owner", "second");
		assertThat(second.get(0)).isEqualTo(0L);
		assertThat(second.get(3)).isEqualTo(2L);
		assertThat(redis.server().command("ZCARD", QUEUE)).isEqualTo(3L);
	}

	@Test
	void shouldLeaveTheQueueWhenAnotherAcquisitionOfTheOwnerHoldsIt() {
		assertThat(acquire("holder", "h0").get(0)).isEqualTo(1L);
		assertThat(acquire("shared", "first").get(0)).isEqualTo(0L);
		assertThat(acquire("shared", "second").get(0)).isEqualTo(0L);
		String token = String.valueOf(redis.server().command("HGET", LOCK, "token"));
		assertThat(release("holder", token, "h0")).isZero();
		assertThat(acquire("shared", "first").get(0)).isEqualTo(1L);
		// The second joins its owner's hold, and its place in line goes with its wait.
		assertThat(acquire("shared", "second").get(0)).isEqualTo(1L);
		assertThat(redis.server().command("ZCARD", QUEUE)).isEqualTo(0L);
		assertThat(redis.server().command("ZCARD", HEARTBEATS)).isEqualTo(0L);
	}

	@Test
	void shouldLetAnyAcquisitionOfACustomOwnerTakeItsOwnersTurn() {
		assertThat(acquire("holder", "h0").get(0)).isEqualTo(1L);
		// Two processes name one custom owner; another owner waits between them.
		assertThat(acquire("custom:shared", "first").get(0)).isEqualTo(0L);
		assertThat(acquire("later", "h2").get(0)).isEqualTo(0L);
		assertThat(acquire("custom:shared", "second").get(0)).isEqualTo(0L);
		String token = String.valueOf(redis.server().command("HGET", LOCK, "token"));
		assertThat(release("holder", token, "h0")).isZero();
		// The owner's turn: the second takes it, the first joins its hold; the later
		// waiter's turn comes after.
		assertThat(acquire("custom:shared", "second").get(0)).isEqualTo(1L);
		assertThat(acquire("later", "h2").get(0)).isEqualTo(0L);
		assertThat(acquire("custom:shared", "first").get(0)).isEqualTo(1L);
		assertThat(redis.server().command("ZRANGE", QUEUE, "0", "-1"))
			.isEqualTo(List.of(LockOwners.digest("later") + "|h2"));
	}

	@Test
	void shouldNotLetAnotherAcquisitionOfAThreadsOwnerTakeItsTurn() {
		assertThat(acquire("holder", "h0").get(0)).isEqualTo(1L);
		assertThat(acquire("owner", "first").get(0)).isEqualTo(0L);
		assertThat(acquire("later", "h2").get(0)).isEqualTo(0L);
		assertThat(acquire("owner", "second").get(0)).isEqualTo(0L);
		String token = String.valueOf(redis.server().command("HGET", LOCK, "token"));
		assertThat(release("holder", token, "h0")).isZero();
		// The first may have given up, its leave not yet run: the second waits its turn.
		assertThat(acquire("owner", "second").get(0)).isEqualTo(0L);
		assertThat(acquire("owner", "first").get(0)).isEqualTo(1L);
	}

	@Test
	void shouldFileEachAcquisitionUnderItsOwnersDigestAndItsHold() {
		assertThat(acquire("holder", "h0").get(0)).isEqualTo(1L);
		assertThat(acquire("owner", "first").get(0)).isEqualTo(0L);
		assertThat(redis.server().command("ZRANGE", QUEUE, "0", "-1"))
			.isEqualTo(List.of(LockOwners.digest("owner") + "|first"));
	}

	private List<?> acquire(String owner, String hold) {
		return (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE_FAIR,
				List.of(LOCK, LockKeys.fence(LOCK), LockKeys.readers(LOCK), QUEUE, HEARTBEATS), owner, hold, "10000",
				"1", "60000", "5000", "1");
	}

	private void leave(String owner, String hold) {
		ScriptEval.eval(redis.server(), LockScripts.LEAVE_FAIR, List.of(LOCK, CHANNEL, QUEUE, HEARTBEATS), owner, hold);
	}

	private long release(String owner, String token, String hold) {
		return (Long) ScriptEval.eval(redis.server(), LockScripts.RELEASE_FAIR,
				List.of(LOCK, CHANNEL, QUEUE, HEARTBEATS), owner, token, hold, "0");
	}

}
