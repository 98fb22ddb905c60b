package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds the model to a real redis-server: random, seeded sequences of the engine's script
 * calls and plain commands run on both, and every reply, message and key must agree
 * ({@link DifferentialRun}). {@code -Dsimulation.seeds=N} runs seeds 1 to N (12 unless
 * set), {@code -Dsimulation.seed=S} replays seed S alone, {@code -Dsimulation.steps=N}
 * sets the calls per seed (400 unless set). A seed fixes the calls, not the real server's
 * timing, so a replay makes the same calls but may see other leases run out. The server
 * publishes keyspace notifications, compared too, and its active expiry is off
 * ({@link RealRedis}).
 */
class ScriptDifferentialTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated("--enable-debug-command", "local");

	private static RealRedis real;

	private static final Map<String, String> shas = new LinkedHashMap<>();

	@BeforeAll
	static void connect() {
		String version = String.valueOf(redis.server().command("INFO", "server"))
			.lines()
			.filter((line) -> line.startsWith("redis_version:"))
			.findFirst()
			.orElseThrow();
		assertThat(Integer.parseInt(version.substring("redis_version:".length()).split("\\.")[0]))
			.as("The model is of Redis 7.0, and the dump reads PEXPIRETIME (7.0): %s", version)
			.isGreaterThanOrEqualTo(7);
		List<String> channels = new ArrayList<>(LockWorkload.channels());
		channels.addAll(LockWorkload.keyspaceChannels());
		real = new RealRedis(redis.server(), channels);
		EngineScripts.all().forEach((name, script) -> {
			String sha = real.load(io.github.distributedlock.redis.script.ScriptTexts.all().get(name));
			assertThat(sha).as("SHA-1 of %s, as Redis and the model compute it", name).isEqualTo(script.sha());
			shas.put(name, sha);
		});
	}

	@AfterAll
	static void close() {
		if (real != null) {
			real.close();
		}
	}

	@TestFactory
	Stream<DynamicTest> modelAgreesWithRedis() {
		int steps = Integer.getInteger("simulation.steps", 400);
		long[] seeds = seeds().toArray();
		Map<String, Integer> outcomes = new TreeMap<>();
		int[] messages = new int[1];
		Map<String, Integer> keyspaceEvents = new TreeMap<>();
		Stream<DynamicTest> runs = LongStream.of(seeds)
			.mapToObj((seed) -> DynamicTest.dynamicTest("seed " + seed, () -> {
				DifferentialRun run = new DifferentialRun(real, shas, seed, steps);
				run.run();
				System.out.println("Seed " + seed + ": " + run.messages() + " messages (keyspace events "
						+ run.keyspaceEvents() + "), " + run.replays() + " calls run again at another time; outcomes "
						+ run.outcomes());
				run.keyspaceEvents().forEach((event, count) -> keyspaceEvents.merge(event, count, Integer::sum));
				run.outcomes().forEach((outcome, count) -> outcomes.merge(outcome, count, Integer::sum));
				messages[0] += run.messages();
			}));
		if (seeds.length < 4) {
			return runs;
		}
		// Which branches a seed reaches depends on the real server's timing: the seeds
		// together must reach the main ones.
		return Stream.concat(runs, Stream.of(DynamicTest.dynamicTest("the seeds reached every kind of outcome", () -> {
			assertThat(outcomes).containsKeys("acquire.lua 1", "acquire.lua 0", "acquire.lua -1", "release.lua 0",
					"release.lua -1", "release.lua -2", "acquire-read.lua 1", "acquire-read.lua 0",
					"release-read.lua 0", "acquire-permit.lua 1", "acquire-permit.lua 0", "release-permit.lua 0",
					"acquire-fair.lua 1", "acquire-fair.lua 0", "release-fair.lua 0", "acquire-all.lua 1",
					"acquire-all.lua 0", "extend.lua 1", "renew.lua 1", "force-release.lua 1", "drop-intent.lua 1",
					"held-member.lua 1", "leave-fair.lua 1", "hand-over.lua 1", "hand-over.lua 0", "hand-over.lua 2");
			assertThat(messages[0]).as("messages published").isGreaterThan(seeds.length);
			assertThat(keyspaceEvents).as("keyspace events compared").containsKeys("del", "expire", "expired");
		})));
	}

	private static LongStream seeds() {
		String seed = System.getProperty("simulation.seed", "");
		if (!seed.isBlank()) {
			return LongStream.of(Long.parseLong(seed.strip()));
		}
		String seeds = System.getProperty("simulation.seeds", "");
		return LongStream.rangeClosed(1, seeds.isBlank() ? 12 : Long.parseLong(seeds.strip()));
	}

}
