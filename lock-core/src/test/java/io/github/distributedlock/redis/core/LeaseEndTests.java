package io.github.distributedlock.redis.core;

import java.util.List;
import java.util.function.Supplier;

import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.script.ScriptEval;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ends that the scripts compute from the server's clock last their whole length after the
 * script read the clock, as a key does after {@code PEXPIRE}: leases and minimum holds
 * kept in sorted sets (permits, read locks), and the minimum hold an inner hold of a lock
 * records. The scripts read the clock truncated to the millisecond, and a member goes
 * once the clock reaches its score, so a member scored {@code nowMs + lease} could end up
 * to 1 ms before the lease its holder counts from before it sent the request
 * ({@code ends_after} in lib.lua). Each test measures the server's clock just before and
 * just after one script, and judges the score only when both readings fall in one
 * millisecond, which is then the script's.
 */
class LeaseEndTests {

	private static final String PERMITS = "sl:{p}:permits";

	private static final String LOCK = "sl:{r}";

	private static final String READERS = LOCK + ":readers";

	private static final String READ_HOLDS = LOCK + ":read-holds";

	private static final String LEASE = "60000";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldScoreATakenPermitAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(60_000, () -> onlyScore(PERMITS), () -> () -> acquirePermit(LEASE));
	}

	@Test
	void shouldScoreAnExtendedPermitAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(30_000, () -> onlyScore(PERMITS), () -> {
			String permit = acquirePermit("1000");
			return () -> eval(LockScripts.EXTEND_PERMIT, List.of(PERMITS), "p", permit, "30000");
		});
	}

	@Test
	void shouldScoreAReadHoldAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(60_000, () -> onlyScore(READERS), () -> () -> acquireRead(LEASE));
	}

	@Test
	void shouldScoreAnExtendedReadHoldAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(30_000, () -> onlyScore(READERS), () -> {
			acquireRead("1000");
			return () -> eval(LockScripts.EXTEND_READ, List.of(READERS, READ_HOLDS), "reader", "read-hold", "30000");
		});
	}

	@Test
	void shouldKeepAReleasedPermitForTheWholeMinimumHold() {
		assertWholeLength(1500, () -> onlyScore(PERMITS), () -> {
			String permit = acquirePermit(LEASE);
			return () -> eval(LockScripts.RELEASE_PERMIT, List.of(PERMITS, PERMITS + ":released"), "p", permit, "1500");
		});
	}

	@Test
	void shouldKeepAReleasedReadHoldForTheWholeMinimumHold() {
		assertWholeLength(1500, () -> onlyScore(READERS), () -> {
			acquireRead(LEASE);
			return () -> eval(LockScripts.RELEASE_READ, List.of(READERS, READ_HOLDS, LOCK + ":released"), "reader",
					"read-hold", "1500");
		});
	}

	@Test
	void shouldRecordAnInnerHoldsMinimumHoldForItsWholeLength() {
		assertWholeLength(1500, () -> Long.parseLong(String.valueOf(redis.server().command("HGET", LOCK, "kept"))),
				() -> {
					assertThat(acquireLock("outer", "0")).isEqualTo(1L);
					assertThat(acquireLock("inner", "1")).as("the inner hold").isEqualTo(1L);
					String token = String.valueOf(redis.server().command("HGET", LOCK, "token"));
					return () -> eval(LockScripts.RELEASE,
							List.of(LOCK, LOCK + ":released", LOCK + ":requests", READERS), "owner", token, "inner",
							"1", "1500");
				});
	}

	/**
	 * Run a script on an empty Redis until the server's clock reads one millisecond just
	 * before and just after it; then the end it wrote must be that millisecond + the
	 * length + 1.
	 * @param millis the lease or minimum hold the script sets
	 * @param end reads the end the script wrote
	 * @param prepare sets up what the script needs and returns the script
	 */
	private void assertWholeLength(long millis, Supplier<Long> end, Supplier<Runnable> prepare) {
		int judged = 0;
		for (int i = 0; i < 100 && judged < 5; i++) {
			redis.server().command("FLUSHALL");
			Runnable script = prepare.get();
			long before = serverMillis();
			script.run();
			long after = serverMillis();
			if (before == after) {
				judged++;
				assertThat(end.get()).as("ends after the whole %d ms", millis).isEqualTo(before + millis + 1);
			}
		}
		assertThat(judged).as("scripts measured within one millisecond").isPositive();
	}

	/**
	 * Return the score of the one member of a sorted set.
	 */
	private static long onlyScore(String set) {
		List<?> members = (List<?>) redis.server().command("ZRANGE", set, "0", "-1", "WITHSCORES");
		assertThat(members).hasSize(2);
		return Long.parseLong(String.valueOf(members.get(1)));
	}

	private static long acquireLock(String hold, String holdsIt) {
		List<?> reply = (List<?>) eval(LockScripts.ACQUIRE,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, LOCK + ":intent", LOCK + ":requests"), "owner", hold,
				"60000", "-1", "", "30000", "0", holdsIt, "1", "60000");
		return (Long) reply.get(0);
	}

	/**
	 * Take the one permit as owner {@code p}, returning its hold's id.
	 */
	private static String acquirePermit(String lease) {
		List<?> taken = (List<?>) eval(LockScripts.ACQUIRE_PERMIT, List.of(PERMITS, LockKeys.fence(PERMITS)), "p",
				"permit-hold", lease, "1", "60000");
		assertThat(taken.get(0)).isEqualTo(1L);
		return "permit-hold";
	}

	private static void acquireRead(String lease) {
		List<?> taken = (List<?>) eval(LockScripts.ACQUIRE_READ, readKeys(), "reader", "read-hold", lease, "1", "60000",
				"", "30000");
		assertThat(taken.get(0)).isEqualTo(1L);
	}

	private static List<String> readKeys() {
		return List.of(LOCK, LockKeys.fence(LOCK), READERS, READ_HOLDS, LOCK + ":intent", LOCK + ":requests",
				LOCK + ":released");
	}

	private static long serverMillis() {
		return ScriptEval.serverMillis(redis.server());
	}

	private static Object eval(LuaScript<?> script, List<String> keys, String... args) {
		return ScriptEval.eval(redis.server(), script, keys, args);
	}

}
