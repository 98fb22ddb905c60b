package io.github.distributedlock.redis.script;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attempt that runs late, after its acquisition ended and after a newer acquisition of
 * the same owner took the lock over (a command delayed on a pool's other connection),
 * must not take the lock over in turn: its undo, a release by its hold id, would then end
 * the lock under the newer holder (docs/design/waiting-and-hand-off.md, "A late
 * attempt"). On a real redis-server, with the attempts sent as the engine sends them, in
 * the order the late command reaches Redis.
 */
class LateAttemptTests {

	private static final String OWNER = "instance:7";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldLeaveTheNewerHoldOfItsOwnerAlone() {
		String lock = "late:{a}";
		// Hold p.f: its reply was lost. Hold p.10, the thread's next acquisition, takes
		// it
		// over (a newer counter, with more hex digits). Then p.f's attempt runs again,
		// late.
		long token = granted(attempt(lock, "p.f"));
		assertThat(granted(attempt(lock, "p.10"))).as("the take-over keeps the token").isEqualTo(token);
		List<?> late = attempt(lock, "p.f");
		assertThat(late.get(0)).as("the late attempt's answer").isEqualTo(0L);
		assertThat(late.get(1)).as("the holder's token").isEqualTo(token);
		assertThat(fields(lock)).as("the lock's holds").containsExactly("#p.10");
		assertThat(redis.server().command("HGET", lock, "holds")).isEqualTo("1");
		// The late attempt's undo releases its own hold id: the newer hold stays.
		Object left = ScriptEval.eval(redis.server(), LockScripts.RELEASE, releaseKeys(lock),
				new ScriptArgs.Release(OWNER, token, "p.f", true, 0, null).argv().toArray(String[]::new));
		assertThat(left).as("holds left after the undo").isEqualTo(1L);
		assertThat(fields(lock)).as("the lock's holds after the undo").containsExactly("#p.10");
	}

	@Test
	void shouldFileNothingWhenItRanLate() {
		String lock = "late:{d}";
		long token = granted(attempt(lock, "p.5"));
		// A newer acquisition's re-entry (it says it holds the lock): an older hold and a
		// newer one, both of which a take-over would drop.
		assertThat(granted(attempt(lock, "p.7", "", true))).isEqualTo(token);
		assertThat(attempt(lock, "p.6", "1000:p.6r", false).get(0)).as("the late attempt's answer").isEqualTo(0L);
		assertThat(fields(lock)).containsExactlyInAnyOrder("#p.5", "#p.7");
		assertThat(redis.server().command("HGET", lock, "holds")).isEqualTo("2");
		assertThat(redis.server().command("EXISTS", LockKeys.requests(lock))).as("a request filed").isEqualTo(0L);
	}

	@Test
	void shouldTakeOverHoweverManyHoldsTheLockHas() {
		String lock = "late:{e}";
		int holds = 8_000;
		List<String> hset = new ArrayList<>(List.of("HSET", lock, "owner", LockOwners.digest(OWNER), "holds",
				Integer.toString(holds), "token", "42"));
		for (int i = 1; i <= holds; i++) {
			hset.add("#p." + Long.toHexString(i));
			hset.add("1");
		}
		redis.server().command(hset.toArray(String[]::new));
		redis.server().command("PEXPIRE", lock, "30000");
		assertThat(granted(attempt(lock, "p." + Long.toHexString(holds + 1)))).isEqualTo(42L);
		assertThat(fields(lock)).containsExactly("#p." + Long.toHexString(holds + 1));
	}

	@Test
	void shouldStillTakeOverOlderHoldsLeftByLostReplies() {
		String lock = "late:{b}";
		long token = granted(attempt(lock, "p.9"));
		assertThat(granted(attempt(lock, "p.a"))).isEqualTo(token);
		assertThat(fields(lock)).containsExactly("#p.a");
		assertThat(redis.server().command("HGET", lock, "holds")).isEqualTo("1");
	}

	@Test
	void shouldCompareOnlyTheHoldsOfItsOwnProcess() {
		String lock = "late:{c}";
		// A custom owner's hold from another process may be newer by its counter; it says
		// nothing about this process's attempts.
		long token = granted(attempt(lock, "q.99"));
		assertThat(granted(attempt(lock, "p.1"))).isEqualTo(token);
		assertThat(fields(lock)).containsExactly("#p.1");
	}

	private static List<?> attempt(String lock, String hold) {
		// A first attempt of an owner with no handle on the lock (holds it: no).
		return attempt(lock, hold, "", false);
	}

	private static List<?> attempt(String lock, String hold, String request, boolean holdsIt) {
		List<String> argv = new ScriptArgs.Acquire(OWNER, hold, 30_000, -1, request, 30_000, false, holdsIt, true,
				LockKeys.FENCE_IDLE_MILLIS, 1)
			.argv();
		return (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE, List.of(lock, LockKeys.fence(lock),
				LockKeys.readers(lock), LockKeys.writerIntent(lock), LockKeys.requests(lock)),
				argv.toArray(String[]::new));
	}

	private static long granted(List<?> reply) {
		assertThat(reply.get(0)).as("granted").isEqualTo(1L);
		return (Long) reply.get(1);
	}

	private static List<String> releaseKeys(String lock) {
		return List.of(lock, LockKeys.releaseChannel(lock), LockKeys.requests(lock), LockKeys.readers(lock));
	}

	private static List<String> fields(String lock) {
		List<?> keys = (List<?>) redis.server().command("HKEYS", lock);
		return keys.stream().map(String::valueOf).filter((field) -> field.startsWith("#")).toList();
	}

}
