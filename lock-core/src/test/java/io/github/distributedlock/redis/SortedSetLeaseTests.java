package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leases and minimum holds kept in sorted sets (permits, read locks) last their whole
 * length after the script read the clock, as a key does after {@code PEXPIRE}: the
 * scripts read the clock truncated to the millisecond, and a member goes once the clock
 * reaches its score, so a member scored {@code nowMs + lease} could end up to 1 ms before
 * the lease its holder counts from before it sent the request ({@code ends_after} in
 * lib.lua). Each test measures the server's clock just before and just after one script,
 * and judges the score only when both readings fall in one millisecond, which is then the
 * script's.
 */
class SortedSetLeaseTests {

	private static final String PERMITS = "sl:{p}:permits";

	private static final String LOCK = "sl:{r}";

	private static final String READERS = LOCK + ":readers";

	private static final String READ_HOLDS = LOCK + ":read-holds";

	private static final String LEASE = "60000";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldScoreATakenPermitAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(60_000, PERMITS, () -> () -> acquirePermit(LEASE));
	}

	@Test
	void shouldScoreAnExtendedPermitAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(30_000, PERMITS, () -> {
			String permit = acquirePermit("1000");
			return () -> eval(LockScripts.EXTEND_PERMIT, List.of(PERMITS), permit, "30000");
		});
	}

	@Test
	void shouldScoreAReadHoldAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(60_000, READERS, () -> () -> acquireRead(LEASE));
	}

	@Test
	void shouldScoreAnExtendedReadHoldAWholeLeaseAfterTheScriptsMillisecond() {
		assertWholeLength(30_000, READERS, () -> {
			acquireRead("1000");
			return () -> eval(LockScripts.EXTEND_READ, List.of(READERS, READ_HOLDS), "reader", "30000");
		});
	}

	@Test
	void shouldKeepAReleasedPermitForTheWholeMinimumHold() {
		assertWholeLength(1500, PERMITS, () -> {
			String permit = acquirePermit(LEASE);
			return () -> eval(LockScripts.RELEASE_PERMIT, List.of(PERMITS, PERMITS + ":released"), permit, "1500");
		});
	}

	@Test
	void shouldKeepAReleasedReadHoldForTheWholeMinimumHold() {
		assertWholeLength(1500, READERS, () -> {
			acquireRead(LEASE);
			return () -> eval(LockScripts.RELEASE_READ, List.of(READERS, READ_HOLDS, LOCK + ":released"), "reader",
					"1500");
		});
	}

	/**
	 * Run a script on an empty Redis until the server's clock reads one millisecond just
	 * before and just after it; then the one member of the set must be scored that
	 * millisecond + the length + 1.
	 * @param millis the lease or minimum hold the script sets
	 * @param set the sorted set the script writes
	 * @param prepare sets up what the script needs and returns the script
	 */
	private void assertWholeLength(long millis, String set, Supplier<Runnable> prepare) {
		int judged = 0;
		for (int i = 0; i < 100 && judged < 5; i++) {
			redis.server().command("FLUSHALL");
			Runnable script = prepare.get();
			long before = serverMillis();
			script.run();
			long after = serverMillis();
			if (before == after) {
				judged++;
				List<?> members = (List<?>) redis.server().command("ZRANGE", set, "0", "-1", "WITHSCORES");
				assertThat(members).hasSize(2);
				assertThat(Long.parseLong(String.valueOf(members.get(1)))).as("ends after the whole %d ms", millis)
					.isEqualTo(before + millis + 1);
			}
		}
		assertThat(judged).as("scripts measured within one millisecond").isPositive();
	}

	private static String acquirePermit(String lease) {
		List<?> taken = (List<?>) eval(LockScripts.ACQUIRE_PERMIT, List.of(PERMITS, LockKeys.fence(PERMITS)), "p",
				lease, "1", "60000");
		assertThat(taken.get(0)).isEqualTo(1L);
		return "p|" + taken.get(1);
	}

	private static void acquireRead(String lease) {
		List<?> taken = (List<?>) eval(LockScripts.ACQUIRE_READ, readKeys(), "reader", lease, "1", "60000", "",
				"30000");
		assertThat(taken.get(0)).isEqualTo(1L);
	}

	private static List<String> readKeys() {
		return List.of(LOCK, LockKeys.fence(LOCK), READERS, READ_HOLDS, LOCK + ":intent", LOCK + ":requests",
				LOCK + ":released");
	}

	private static long serverMillis() {
		List<?> clock = (List<?>) redis.server().command("TIME");
		return Long.parseLong(String.valueOf(clock.get(0))) * 1000
				+ Long.parseLong(String.valueOf(clock.get(1))) / 1000;
	}

	private static Object eval(LuaScript script, List<String> keys, String... args) {
		List<String> command = new ArrayList<>(
				List.of("EVAL", new String(script.text(), StandardCharsets.UTF_8), Integer.toString(keys.size())));
		command.addAll(keys);
		command.addAll(List.of(args));
		return redis.server().command(command.toArray(String[]::new));
	}

}
