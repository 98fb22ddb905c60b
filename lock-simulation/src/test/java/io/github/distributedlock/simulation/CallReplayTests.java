package io.github.distributedlock.simulation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link CallReplay} on made-up observations of a real server.
 */
class CallReplayTests {

	private static final long BOUNDARY = 1_795_000_000_001_000L;

	private static final String LOCK = "dl:{a}";

	private static final LockWorkload.Step ACQUIRE = new LockWorkload.Step("acquire.lua",
			List.of(LOCK, "dl:{a}:fence", LOCK + ":readers", LOCK + ":intent", LOCK + ":requests"),
			List.of("owner", "h1", "100", "-1", "", "30000", "0", "0", "1", "604800000"), 0);

	private final CallReplay replay = new CallReplay((nanos) -> new RedisModel(new VirtualClock(nanos)));

	@Test
	void shouldRunTheCallAtTheTimeItsTokenShows() {
		long token = BOUNDARY - 30;
		RealRedis.Observation observed = observation(List.of(1L, token), new LinkedHashMap<>());
		RedisModel model = new RedisModel(new VirtualClock((BOUNDARY - 50) * 1000));
		CallReplay.Result result = this.replay.replay(model, ACQUIRE, observed);
		assertThat(result.reply()).isEqualTo(List.of(1L, token));
		assertThat(result.model().clock().micros()).isEqualTo(token);
	}

	/**
	 * Redis took the time keys expire by just before a millisecond boundary, and the
	 * script read {@code TIME} just after it: a writer's lock that ends in the earlier
	 * millisecond still blocks the reader, whose request is filed at the later one. No
	 * single time explains both.
	 */
	@Test
	void shouldExplainAClockThatTickedAsTheScriptStarted() {
		long ms = BOUNDARY / 1000;
		String request = "2000:9c41d07e5ab2f386.1";
		LockWorkload.Step read = new LockWorkload.Step("acquire-read.lua",
				List.of(LOCK, "dl:{a}:fence", LOCK + ":readers", LOCK + ":readholds", LOCK + ":intent",
						LOCK + ":requests", LOCK + ":released"),
				List.of("reader", "h2", "100", "1", "604800000", request, "30000"), 0);
		Map<String, @Nullable KeyState> keys = new LinkedHashMap<>();
		read.keys().forEach((key) -> keys.put(key, null));
		keys.put(LOCK + ":requests", new KeyState("zset", ms + 30000, List.of(request, Long.toString(ms)), true));
		RealRedis.Observation observed = observation(List.of(0L, 7L, 0L), keys);
		RedisModel model = new RedisModel(new VirtualClock((BOUNDARY - 50) * 1000));
		model.command("HSET", LOCK, "owner", "writer", "holds", "1", "token", "7");
		model.alignExpiry(LOCK, ms - 1);
		CallReplay.Result result = this.replay.replay(model, read, observed);
		assertThat(result.differences()).isEmpty();
		assertThat(result.model()).isNotSameAs(model);
	}

	@Test
	void shouldReportWhatNoTimeInTheBracketExplainsAfterTryingTicks() {
		RealRedis.Observation observed = observation(List.of(0L, 42L, 100L), new LinkedHashMap<>());
		RedisModel model = new RedisModel(new VirtualClock((BOUNDARY - 50) * 1000));
		CallReplay.Result result = this.replay.replay(model, ACQUIRE, observed);
		assertThat(result.differences()).first().asString().startsWith("reply: Redis [0, 42, 100], model [1, ");
		// The start, the boundary, then a tick as the script starts or after each of up
		// to 40 commands.
		assertThat(this.replay.replays()).isEqualTo(1 + 41);
	}

	private static RealRedis.Observation observation(Object reply, Map<String, @Nullable KeyState> keys) {
		return new RealRedis.Observation(BOUNDARY - 50, reply, BOUNDARY + 50, BOUNDARY + 80, keys, null, List.of(),
				List.of());
	}

}
