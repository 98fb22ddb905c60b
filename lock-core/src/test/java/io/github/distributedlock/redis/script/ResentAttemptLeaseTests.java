package io.github.distributedlock.redis.script;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.test.RedisCommandException;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attempt that finds the hold an earlier run of itself took (its reply was lost)
 * answers with it, and the caller counts the lease from before this run: the lease must
 * cover that. And a multi-lock attempt that is blocked leaves none of its holds behind,
 * however an earlier run of it went. Found by an adversarial review; script level, on a
 * real redis-server.
 */
class ResentAttemptLeaseTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldRenewTheLeaseOfALockHoldFoundFromAnEarlierRun() throws Exception {
		String lock = "r:{a}";
		List<String> keys = List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":intent",
				lock + ":requests");
		String[] args = { "owner", "h1", "2000", "0", "", "30000", "0", "0", "1", "600000" };
		assertThat(((List<?>) eval(LockScripts.ACQUIRE, keys, args)).get(0)).isEqualTo(1L);
		Thread.sleep(700);
		long t0 = serverMillis();
		assertThat(((List<?>) eval(LockScripts.ACQUIRE, keys, args)).get(0)).as("found, not counted").isEqualTo(1L);
		assertThat(redis.server().command("HGET", lock, "holds")).isEqualTo("1");
		assertThat(leaseLeftSince(lock, t0)).as("the lease counts from the run that answered").isGreaterThan(1990);
	}

	@Test
	void shouldRenewTheLeaseOfAFairHoldFoundFromAnEarlierRun() throws Exception {
		String lock = "f:{a}";
		List<String> keys = List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":queue",
				lock + ":queue:heartbeats");
		String[] args = { "owner", "h1", "2000", "1", "600000", "5000", "1" };
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_FAIR, keys, args)).get(0)).isEqualTo(1L);
		Thread.sleep(700);
		long t0 = serverMillis();
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_FAIR, keys, args)).get(0)).isEqualTo(1L);
		assertThat(leaseLeftSince(lock, t0)).isGreaterThan(1990);
	}

	@Test
	void shouldRenewTheLeaseOfAReadHoldFoundFromAnEarlierRun() throws Exception {
		String lock = "rd:{a}";
		List<String> keys = List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":readholds",
				lock + ":intent", lock + ":requests", lock + ":released");
		String[] args = { "reader", "h1", "2000", "1", "600000", "", "30000" };
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_READ, keys, args)).get(0)).isEqualTo(1L);
		Thread.sleep(700);
		long t0 = serverMillis();
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_READ, keys, args)).get(0)).isEqualTo(1L);
		long end = Long.parseLong(
				String.valueOf(redis.server().command("ZSCORE", lock + ":readers", LockOwners.digest("reader"))));
		assertThat(end - t0).isGreaterThan(1990);
	}

	@Test
	void shouldRenewTheLeaseOfAPermitFoundFromAnEarlierRun() throws Exception {
		String permits = "p:{a}:permits";
		List<String> keys = List.of(permits, LockKeys.fence(permits));
		String[] args = { "owner", "h1", "2000", "1", "600000" };
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_PERMIT, keys, args)).get(0)).isEqualTo(1L);
		Thread.sleep(700);
		long t0 = serverMillis();
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_PERMIT, keys, args)).get(0)).as("its own permit, not refused")
			.isEqualTo(1L);
		assertThat(redis.server().command("ZCARD", permits)).isEqualTo(1L);
		long end = Long
			.parseLong(String.valueOf(redis.server().command("ZSCORE", permits, LockOwners.digest("owner") + "|h1")));
		assertThat(end - t0).isGreaterThan(1990);
	}

	/**
	 * Run 1 takes A (300 ms) and B (5 s) and its reply is lost; A's lease ends and X
	 * takes A; the re-sent run 2 is blocked by X; X releases; run 3 (its t0 read now) is
	 * granted.
	 */
	@Test
	void shouldLeaveNoHoldOfABlockedMultiLockAttemptAndCoverTheGrantedOne() throws Exception {
		String a = "sl:{m}:a";
		String b = "sl:{m}:b";
		List<String> keys = new ArrayList<>(multiKeys(a));
		keys.addAll(multiKeys(b));
		String[] args = { "owner-O", "hA", "0", "600000", "", "30000", "300", "5000" };
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_ALL, keys, args)).get(0)).isEqualTo(1L);
		Thread.sleep(1500);
		List<?> x = (List<?>) eval(LockScripts.ACQUIRE,
				List.of(a, LockKeys.fence(a), a + ":readers", a + ":intent", a + ":requests"), "owner-X", "hx", "10000",
				"0", "", "30000", "0", "0", "0", "600000");
		assertThat(x.get(0)).isEqualTo(1L);
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_ALL, keys, args)).get(0)).as("run 2 blocked by X").isEqualTo(0L);
		assertThat(redis.server().command("EXISTS", b)).as("B, which only run 1's hold held, is free again")
			.isEqualTo(0L);
		eval(LockScripts.RELEASE, List.of(a, a + ":released", a + ":requests", a + ":readers"), "owner-X",
				String.valueOf(x.get(1)), "hx", "1", "0");
		long t0 = serverMillis();
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_ALL, keys, args)).get(0)).as("run 3 granted").isEqualTo(1L);
		assertThat(leaseLeftSince(b, t0)).as("B's lease covers t0 + 5000 ms").isGreaterThanOrEqualTo(4990);
	}

	/**
	 * Owner O holds B alone, and run 1 of O's multi-lock joins it and takes A (300 ms);
	 * its reply is lost. O's own hold of B is released with 2 s of its minimum hold left,
	 * so B records that keep. A's lease ends and X takes A; the re-sent run 2 is blocked
	 * by X and rolls back its hold of B, the last one: B must stay kept, as a release
	 * would keep it, not be freed. Found by the simulation (seed 5368).
	 */
	@Test
	void shouldKeepALockForItsMinimumHoldWhenABlockedMultiLockAttemptRollsBack() throws Exception {
		String a = "sk:{m}:a";
		String b = "sk:{m}:b";
		List<String> bKeys = List.of(b, LockKeys.fence(b), b + ":readers", b + ":intent", b + ":requests");
		List<?> single = (List<?>) eval(LockScripts.ACQUIRE, bKeys, "owner-O", "hS", "10000", "0", "", "30000", "0",
				"0", "1", "600000");
		assertThat(single.get(0)).isEqualTo(1L);
		List<String> keys = new ArrayList<>(multiKeys(a));
		keys.addAll(multiKeys(b));
		String[] args = { "owner-O", "hM", "1", "600000", "", "30000", "300", "10000" };
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_ALL, keys, args)).get(0)).isEqualTo(1L);
		assertThat(redis.server().command("HGET", b, "holds")).isEqualTo("2");
		assertThat(eval(LockScripts.RELEASE, List.of(b, b + ":released", b + ":requests", b + ":readers"), "owner-O",
				String.valueOf(single.get(1)), "hS", "1", "2000"))
			.isEqualTo(1L);
		Thread.sleep(500);
		List<?> x = (List<?>) eval(LockScripts.ACQUIRE,
				List.of(a, LockKeys.fence(a), a + ":readers", a + ":intent", a + ":requests"), "owner-X", "hx", "10000",
				"0", "", "30000", "0", "0", "0", "600000");
		assertThat(x.get(0)).isEqualTo(1L);
		assertThat(((List<?>) eval(LockScripts.ACQUIRE_ALL, keys, args)).get(0)).as("run 2 blocked by X").isEqualTo(0L);
		assertThat(redis.server().command("HGET", b, "owner")).as("B kept by nobody").isEqualTo("");
		assertThat(redis.server().command("HGET", b, "holds")).isEqualTo("0");
		assertThat(redis.server().command("HEXISTS", b, "#hM")).as("run 1's hold rolled back").isEqualTo(0L);
		long kept = Long.parseLong(String.valueOf(redis.server().command("HGET", b, "kept")));
		long expiresAt = expiryTime(b);
		// Until the end of O's minimum hold, as its release recorded it (Redis 7.2 counts
		// a script's expiry from the script's start: a millisecond either way).
		assertThat(expiresAt).as("kept until the minimum hold's end").isBetween(kept - 1, kept + 1);
	}

	/**
	 * The key's absolute expiry in server milliseconds: {@code PEXPIRETIME} on Redis 7.0
	 * and later, and the server's clock plus {@code PTTL}, read in one script, on 6.2.
	 */
	private static long expiryTime(String key) {
		try {
			return Long.parseLong(String.valueOf(redis.server().command("PEXPIRETIME", key)));
		}
		catch (RedisCommandException ex) {
			Object end = redis.server()
				.command("EVAL",
						"local t = redis.call('TIME') "
								+ "return t[1] * 1000 + math.floor(t[2] / 1000) + redis.call('PTTL', KEYS[1])",
						"1", key);
			return Long.parseLong(String.valueOf(end));
		}
	}

	private static List<String> multiKeys(String lock) {
		return List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":requests", lock + ":released");
	}

	/**
	 * How long after {@code t0} (server ms) the key's lease ends: its end, read with the
	 * server's clock in one script, so that no time passes between the two readings,
	 * however busy the machine.
	 */
	private static long leaseLeftSince(String key, long t0) {
		Object end = redis.server()
			.command("EVAL", "local t = redis.call('TIME') "
					+ "return t[1] * 1000 + math.floor(t[2] / 1000) + redis.call('PTTL', KEYS[1])", "1", key);
		return Long.parseLong(String.valueOf(end)) - t0;
	}

	private static long serverMillis() {
		return ScriptEval.serverMillis(redis.server());
	}

	private static Object eval(LuaScript<?> script, List<String> keys, String... args) {
		return ScriptEval.eval(redis.server(), script, keys, args);
	}

}
