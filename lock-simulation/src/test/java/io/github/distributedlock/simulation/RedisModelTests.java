package io.github.distributedlock.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of what the differential tests cannot hold to a real server: the model's faults,
 * its clock and its pub/sub queue, and the Redis 7.2 rule for time in scripts.
 */
class RedisModelTests {

	private static final long START = 1_795_000_000_000_000_000L;

	private static final String LOCK = "dl:{a}";

	private static final List<String> ACQUIRE_KEYS = List.of(LOCK, "dl:{a}:fence", LOCK + ":readers", LOCK + ":intent",
			LOCK + ":requests");

	private static final List<String> RELEASE_KEYS = List.of(LOCK, LOCK + ":released", LOCK + ":requests",
			LOCK + ":readers");

	private final VirtualClock clock = new VirtualClock(START);

	private final RedisModel model = new RedisModel(this.clock);

	@Test
	void shouldGrantAndExpireOnTheVirtualClock() {
		assertThat(acquire("owner-1", "h1", "100")).isEqualTo(List.of(1L, START / 1000));
		assertThat(acquire("owner-2", "h2", "100")).isEqualTo(List.of(0L, START / 1000, 100L));
		this.clock.advance(Duration.ofMillis(100));
		assertThat(this.model.command("PTTL", LOCK)).isEqualTo(0L);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(this.model.command("EXISTS", LOCK)).isEqualTo(0L);
		assertThat(acquire("owner-2", "h2", "100")).isEqualTo(List.of(1L, START / 1000 + 101_000));
	}

	@Test
	void shouldQueueMessagesUntilTheSimulationDeliversThem() {
		PubSub.Subscriber waiter = this.model.pubSub().subscribe("waiter", LOCK + ":released");
		List<?> granted = (List<?>) acquire("owner-1", "h1", "1000");
		acquire("owner-2", "h2", "1000");
		assertThat(this.model.eval("release.lua", RELEASE_KEYS,
				List.of("owner-1", String.valueOf(granted.get(1)), "h1", "1", "0")))
			.isEqualTo(0L);
		assertThat(this.model.pubSub().inFlight()).isOne();
		assertThat(this.model.pubSub().poll())
			.isEqualTo(new PubSub.Delivery(waiter, LOCK + ":released", String.valueOf(granted.get(1))));
		assertThat(this.model.pubSub().poll()).isNull();
		this.model.pubSub().disconnect(waiter);
		assertThat(this.model.command("PUBLISH", LOCK + ":released", "x")).isEqualTo(0L);
	}

	@Test
	void shouldLoseTheWritesTheReplicaLacksOnFailover() {
		this.model.replicaLag(1);
		acquire("owner-1", "h1", "1000");
		assertThat(this.model.keys()).contains(LOCK);
		this.model.command("SET", "other", "v");
		// The replica has the acquisition, not the SET that followed it.
		assertThat(this.model.failover()).isOne();
		assertThat(this.model.keys()).contains(LOCK).doesNotContain("other");
		this.model.replicaLag(0);
		this.model.command("SET", "other", "v");
		assertThat(this.model.failover()).isZero();
		assertThat(this.model.keys()).contains(LOCK, "other");
	}

	@Test
	void shouldLoseEveryWriteOfAReplicaThatLagsByAll() {
		this.model.replicaLag(100);
		acquire("owner-1", "h1", "1000");
		acquire("owner-1", "h2", "1000");
		assertThat(this.model.failover()).isEqualTo(2);
		assertThat(this.model.keys()).isEmpty();
		assertThat(acquire("owner-2", "h3", "1000")).asList().first().isEqualTo(1L);
	}

	@Test
	void shouldEvictAKeyOnTheReplicaToo() {
		acquire("owner-1", "h1", "1000");
		assertThat(this.model.evict(LOCK)).isTrue();
		assertThat(this.model.evict(LOCK)).isFalse();
		this.model.failover();
		assertThat(this.model.keys()).doesNotContain(LOCK);
	}

	@Test
	void shouldAnswerNothingWhileStalled() {
		this.model.stall(Duration.ofMillis(50));
		assertThat(this.model.answering()).isFalse();
		assertThatIllegalStateException().isThrownBy(() -> acquire("owner-1", "h1", "1000"))
			.withMessageContaining("stalled");
		this.clock.advance(Duration.ofMillis(50));
		assertThat(this.model.answering()).isTrue();
		assertThat(this.model.stalledUntil()).isEqualTo(START + 50_000_000);
		assertThat(acquire("owner-1", "h1", "1000")).asList().first().isEqualTo(1L);
	}

	@Test
	void shouldReadTheScriptStartForEveryCommandUnderTheRedis72Rule() {
		String script = """
				local function now()
					local t = redis.call('TIME')
					return tonumber(t[1]) * 1000000 + tonumber(t[2])
				end
				redis.call('SET', KEYS[1], 'v', 'PX', 2)
				redis.call('SET', KEYS[2], 'v')
				local start = now()
				while now() - start < 5000 do
				end
				local pttl = redis.call('PTTL', KEYS[1])
				local set = redis.call('PEXPIRE', KEYS[2], 1)
				return {redis.call('EXISTS', KEYS[1]), pttl, set, redis.call('EXISTS', KEYS[2])}
				""";
		this.model.scriptCommandNanos(100_000);
		assertThat(this.model.evalText(script, List.of("a", "b"), List.of())).isEqualTo(List.of(1L, 0L, 1L, 1L));
		this.model.expiryRule(ExpiryRule.REDIS_7_2);
		assertThat(this.model.evalText(script, List.of("a", "b"), List.of())).isEqualTo(List.of(1L, 2L, 1L, 1L));
		// After the script, the key's 2 ms have long passed.
		assertThat(this.model.command("EXISTS", "a")).isEqualTo(0L);
	}

	@Test
	void shouldRunEveryScriptOfTheEngine() {
		assertThat(EngineScripts.all()).hasSize(18).containsKeys("acquire.lua", "release.lua", "renew.lua");
		assertThatIllegalArgumentException().isThrownBy(() -> this.model.eval("nope.lua", List.of(), List.of()))
			.withMessageContaining("acquire.lua");
	}

	@Test
	void shouldGoBackToASnapshot() {
		RedisModel.Snapshot before = this.model.snapshot();
		acquire("owner-1", "h1", "1000");
		this.model.restore(before);
		assertThat(this.model.keys()).isEmpty();
	}

	@Test
	void clockShouldMoveOnlyForward() {
		VirtualClock clock = new VirtualClock(1_500_000_123_456L);
		assertThat(clock.micros()).isEqualTo(1_500_000_123L);
		assertThat(clock.millis()).isEqualTo(1_500_000L);
		clock.advanceTo(1_600_000_000_000L);
		assertThat(clock.nanos()).isEqualTo(1_600_000_000_000L);
		assertThatIllegalArgumentException().isThrownBy(() -> clock.advanceNanos(-1));
		assertThatIllegalArgumentException().isThrownBy(() -> clock.advanceTo(1_500_000_000_000L));
	}

	@Test
	void randomShouldRepeatForASeed() {
		SimulationRandom first = new SimulationRandom(42);
		SimulationRandom second = new SimulationRandom(42);
		List<Long> drawn = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			long value = first.nextLong(10);
			assertThat(value).isBetween(0L, 9L).isEqualTo(second.nextLong(10));
			drawn.add(value);
		}
		assertThat(drawn).contains(0L, 9L);
		assertThat(new SimulationRandom(43).nextLong()).isNotEqualTo(new SimulationRandom(42).nextLong());
		// SplitMix64's first output for seed 0, as published.
		assertThat(new SimulationRandom(0).nextLong()).isEqualTo(0xe220a8397b1dcdafL);
	}

	private Object acquire(String owner, String hold, String lease) {
		return this.model.eval("acquire.lua", ACQUIRE_KEYS, List.of(owner, hold, lease, "-1"));
	}

}
