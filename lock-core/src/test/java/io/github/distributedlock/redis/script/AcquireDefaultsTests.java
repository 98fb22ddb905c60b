package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code acquire.lua} reads for the arguments {@link ScriptArgs.Acquire} leaves off:
 * the values the engine would have sent. On a real redis-server.
 */
class AcquireDefaultsTests {

	private static final String LOCK = "ad:{a}";

	private static final List<String> KEYS = List.of(LOCK, LockKeys.fence(LOCK), LOCK + ":readers", LOCK + ":intent",
			LOCK + ":requests");

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldKeepTheFencingCounterForTheEnginesIdleTimeWhenItIsLeftOff() {
		List<String> argv = new ScriptArgs.Acquire("owner", "h1", 10000, -1, "", HandOffRequest.VALIDITY_MILLIS, false,
				false, true, LockKeys.FENCE_IDLE_MILLIS, 1)
			.argv();
		assertThat(argv).as("the usual first attempt").hasSize(4);
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE, KEYS,
				argv.toArray(String[]::new));
		assertThat(reply.get(0)).isEqualTo(1L);
		long idle = (Long) redis.server().command("PTTL", LockKeys.fence(LOCK));
		assertThat(idle).as("the fencing counter's time to live")
			.isBetween(LockKeys.FENCE_IDLE_MILLIS - 60_000, LockKeys.FENCE_IDLE_MILLIS);
	}

	@Test
	void shouldKeepTheRequestsForTheEnginesValidityWhenItIsLeftOff() {
		String lock = "ad:{b}";
		List<String> keys = List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":intent",
				lock + ":requests");
		assertThat(ScriptEval.eval(redis.server(), LockScripts.ACQUIRE, keys, "other", "h0", "60000", "-1")).asList()
			.first()
			.isEqualTo(1L);
		List<String> argv = new ScriptArgs.Acquire("owner", "h1", 10000, -1, "2000:r", HandOffRequest.VALIDITY_MILLIS,
				false, false, true, LockKeys.FENCE_IDLE_MILLIS, 1)
			.argv();
		assertThat(argv).as("a waiter's attempt").hasSize(5);
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE, keys,
				argv.toArray(String[]::new));
		assertThat(reply.get(0)).as("blocked").isEqualTo(0L);
		long ttl = (Long) redis.server().command("PTTL", lock + ":requests");
		assertThat(ttl).as("the requests' time to live")
			.isBetween(HandOffRequest.VALIDITY_MILLIS - 5_000, HandOffRequest.VALIDITY_MILLIS);
	}

}
