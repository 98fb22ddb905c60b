package io.github.distributedlock.redis.script;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A new hold that asks {@code acquire.lua} for a block of tokens gets the tokens from its
 * own up, and the counter stays at the block's last, only while the clock gives the first
 * token (docs/design/cohorting.md, rule 2). On a real redis-server, with the attempts
 * sent as the engine sends them.
 */
class TokenBlockTests {

	private static final String OWNER = "instance:cohort:1";

	private static final String REQUEST = "2000:r1";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldReserveTheBlockAboveTheTokenTheClockGave() {
		String lock = "block:{a}";
		List<?> reply = attempt(lock, "p.1", REQUEST, 1_000);
		assertThat(reply).as("granted, with the block").hasSize(3).first().isEqualTo(1L);
		long token = (Long) reply.get(1);
		assertThat(reply.get(2)).as("the block").isEqualTo(1_000L);
		assertThat(counter(lock)).as("the counter at the block's last token").isEqualTo(token + 999);
		assertThat(redis.server().command("HGET", lock, "#p.1")).as("the hold's field").isEqualTo("1000");
		release(lock, token, "p.1");
		// Another owner, at once: a millisecond has not passed, so the clock still trails
		// the
		// block, and the counter alone puts the token above it.
		long next = (Long) plain(lock, "other", "q.1").get(1);
		assertThat(next).as("the next token anywhere").isGreaterThan(token + 999);
	}

	@Test
	void shouldGrantOneTokenWhileTheCounterLeadsTheClock() {
		String lock = "block:{b}";
		long ahead = serverMicros() + 60_000_000L;
		redis.server().command("SET", LockKeys.fence(lock), Long.toString(ahead));
		List<?> reply = attempt(lock, "p.1", REQUEST, 16);
		assertThat(reply.get(1)).as("the counter's next").isEqualTo(ahead + 1);
		assertThat(reply.get(2)).as("the block").isEqualTo(1L);
		assertThat(counter(lock)).as("the counter, one on").isEqualTo(ahead + 1);
		assertThat(redis.server().command("HGET", lock, "#p.1")).as("the hold's field").isEqualTo("1");
	}

	@Test
	void shouldAnswerARerunWithWhatItsFirstRunGot() {
		String lock = "block:{c}";
		List<?> first = attempt(lock, "p.1", REQUEST, 16);
		long top = counter(lock);
		List<?> rerun = attempt(lock, "p.1", REQUEST, 16);
		assertThat(rerun).as("the rerun's reply").isEqualTo(first);
		assertThat(counter(lock)).as("the counter after the rerun").isEqualTo(top);
	}

	@Test
	void shouldGrantTheBlockWithTheLockReservedForTheRequest() {
		String lock = "block:{d}";
		long held = (Long) plain(lock, "other", "q.1").get(1);
		assertThat(attempt(lock, "p.1", REQUEST, 16).get(0)).as("blocked, and filed").isEqualTo(0L);
		release(lock, held, "q.1", "other");
		assertThat(redis.server().command("HGET", lock, "reserved")).as("reserved for the request").isEqualTo(REQUEST);
		List<?> reply = attempt(lock, "p.1", REQUEST, 16);
		assertThat(reply.get(2)).as("the block").isEqualTo(16L);
		assertThat(counter(lock)).isEqualTo((Long) reply.get(1) + 15);
	}

	@Test
	void shouldGrantNoBlockWithoutARequestOrToAReentry() {
		String lock = "block:{e}";
		List<?> plain = attempt(lock, "p.1", "", 16);
		assertThat(plain).as("an attempt without a request").hasSize(2);
		assertThat(counter(lock)).isEqualTo((Long) plain.get(1));
		List<?> again = acquire(lock, "p.2", REQUEST, true, 16);
		assertThat(again).as("a re-entry").hasSize(2).first().isEqualTo(1L);
		assertThat(counter(lock)).isEqualTo((Long) plain.get(1));
	}

	@Test
	void shouldGrantNoBlockWithoutARequestWhereverTheAttemptGoes() {
		// Another waiter's request sends an attempt without a request past the fast path.
		String lock = "block:{f}";
		redis.server().command("ZADD", LockKeys.requests(lock), "1", "2000:other");
		List<?> reply = attempt(lock, "p.1", "", 16);
		assertThat(reply).as("granted").hasSize(3).first().isEqualTo(1L);
		assertThat(reply.get(2)).as("the block").isEqualTo(1L);
		assertThat(counter(lock)).isEqualTo((Long) reply.get(1));
		assertThat(redis.server().command("HGET", lock, "#p.1")).isEqualTo("1");
	}

	@Test
	void shouldGrantOneTokenForABlockNoEngineSends() {
		for (String block : new String[] { "0", "-5", "1.5", "1001", "1e3", "abc", "" }) {
			String lock = "block:{g" + block + "}";
			List<String> argv = new ArrayList<>(new ScriptArgs.Acquire(OWNER, "p.1", 30_000, -1, REQUEST, 30_000, false,
					false, true, LockKeys.FENCE_IDLE_MILLIS, 2)
				.argv());
			argv.set(10, block);
			List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE, keys(lock),
					argv.toArray(String[]::new));
			assertThat(reply).as("block '%s'", block).hasSize(3).first().isEqualTo(1L);
			assertThat(reply.get(2)).as("the block granted for '%s'", block).isEqualTo(1L);
			assertThat(counter(lock)).as("the counter after block '%s'", block).isEqualTo((Long) reply.get(1));
		}
	}

	@Test
	void shouldSendTheBlockOnlyWhenItIsMoreThanOne() {
		assertThat(args("", 1).argv()).hasSize(4);
		assertThat(args(REQUEST, 1).argv()).hasSize(5);
		assertThat(args(REQUEST, 16).argv()).hasSize(11).last().isEqualTo("16");
		assertThatIllegalArgumentException().isThrownBy(() -> args(REQUEST, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> args(REQUEST, CohortLimits.MAX_HOLDERS + 1));
	}

	private static ScriptArgs.Acquire args(String request, int block) {
		return new ScriptArgs.Acquire(OWNER, "p.1", 30_000, -1, request, 30_000, false, false, true,
				LockKeys.FENCE_IDLE_MILLIS, block);
	}

	private static List<?> attempt(String lock, String hold, String request, int block) {
		return acquire(lock, hold, request, false, block);
	}

	private static List<?> acquire(String lock, String hold, String request, boolean holdsIt, int block) {
		List<String> argv = new ScriptArgs.Acquire(OWNER, hold, 30_000, -1, request, 30_000, false, holdsIt, true,
				LockKeys.FENCE_IDLE_MILLIS, block)
			.argv();
		return (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE, keys(lock), argv.toArray(String[]::new));
	}

	private static List<?> plain(String lock, String owner, String hold) {
		List<String> argv = new ScriptArgs.Acquire(owner, hold, 30_000, -1, "", 30_000, false, false, true,
				LockKeys.FENCE_IDLE_MILLIS, 1)
			.argv();
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE, keys(lock),
				argv.toArray(String[]::new));
		assertThat(reply.get(0)).as("granted").isEqualTo(1L);
		return reply;
	}

	private static void release(String lock, long token, String hold) {
		release(lock, token, hold, OWNER);
	}

	private static void release(String lock, long token, String hold, String owner) {
		Object left = ScriptEval.eval(redis.server(), LockScripts.RELEASE,
				List.of(lock, LockKeys.releaseChannel(lock), LockKeys.requests(lock), LockKeys.readers(lock)),
				new ScriptArgs.Release(owner, token, hold, true, 0, null).argv().toArray(String[]::new));
		assertThat(left).as("holds left").isEqualTo(0L);
	}

	private static List<String> keys(String lock) {
		return List.of(lock, LockKeys.fence(lock), LockKeys.readers(lock), LockKeys.writerIntent(lock),
				LockKeys.requests(lock));
	}

	private static long counter(String lock) {
		return Long.parseLong(String.valueOf(redis.server().command("GET", LockKeys.fence(lock))));
	}

	private static long serverMicros() {
		List<?> clock = (List<?>) redis.server().command("TIME");
		return Long.parseLong(String.valueOf(clock.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(clock.get(1)));
	}

}
