package io.github.distributedlock.simulation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import io.github.distributedlock.redis.script.LockFunctions;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
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
	static final RedisServerExtension redis = RedisServerExtension.dedicated("--enable-debug-command", "local")
		.since(7, "Holding the model to Redis 7.0 (enable-debug-command, DEBUG SET-ACTIVE-EXPIRE)");

	private static RealRedis real;

	private static final Map<String, String> shas = new LinkedHashMap<>();

	private static final Map<String, String> functions = new LinkedHashMap<>();

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
			String sha = real.load(ScriptTexts.all().get(name));
			assertThat(sha).as("SHA-1 of %s, as Redis and the model compute it", name).isEqualTo(script.sha());
			shas.put(name, sha);
		});
		redis.server()
			.command("FUNCTION", "LOAD", "REPLACE", new String(LockFunctions.library(), StandardCharsets.UTF_8));
		LockScripts.ALL.forEach((script) -> functions.put(script.name(), LockFunctions.functionName(script)));
	}

	/**
	 * The scripts as the engine sends them to Redis 7 and Valkey, as the functions of one
	 * library, agree with the model as their {@code EVALSHA} form does.
	 */
	@TestFactory
	Stream<DynamicTest> modelAgreesWithRedisRunningTheScriptsAsFunctions() {
		int steps = Integer.getInteger("simulation.steps", 400);
		return seeds().limit(4)
			.mapToObj((seed) -> DynamicTest.dynamicTest("seed " + seed,
					() -> new DifferentialRun(real, "FCALL", functions, seed, steps).run()));
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
					"held-member.lua 1", "leave-fair.lua 1", "acquire.lua 1, a block");
			// The release's message rule, each kind of case (DifferentialRun holds every
			// one to the rule): older engines' requests are reserved for and told too.
			assertThat(outcomes).containsKeys("reserved for a request, alone: told",
					"reserved for an older quiet request, others behind: told",
					"reserved for an older chained request, others behind: told",
					"reserved, another form behind: told");
			assertThat(messages[0]).as("messages published").isGreaterThan(seeds.length);
			assertThat(keyspaceEvents).as("keyspace events compared").containsKeys("del", "expire", "expired");
		})));

	}

	private static final String LOCK = "dl:{orders:1}";

	/**
	 * The request the sequence reserves the lock for: an older engine's chained one,
	 * filed by a JVM not yet upgraded.
	 */
	private static final String CHAINED = "2000:c:9c41d07e5ab2f386.a1";

	/**
	 * An older engine's quiet request filed after it: sorts after it as {@link #OTHER}
	 * does.
	 */
	private static final String QUIET_OTHER = "2000:q:f3b8a1c05d7e2946.a3";

	/**
	 * The request filed after it, with the others in line. The line is scored by arrival
	 * in ms, and a sorted set orders equal scores by member: filed in the same ms as the
	 * chained one, a member that sorts first ("2000:9c..." before "2000:c:...") is served
	 * first, the lock is reserved for it, and the chained waiter's attempt is refused.
	 * This one sorts after, so the chained request is first in line however the two
	 * filings fall.
	 */
	private static final String OTHER = "2000:f3b8a1c05d7e2946.a2";

	// The key an older engine's release pushed for a chained request: this one never.
	private static final String HINT = LOCK + ":hint:" + CHAINED;

	/**
	 * A release that reserves the lock for an older engine's chained request treats it as
	 * any request: it reserves the lock for it, pushes no hint and publishes
	 * {@code reserved:<request>}, whoever waits behind it (nobody, a plain request, an
	 * older engine's quiet one), so that the older waiter hears it (docs/design/
	 * waiting-and-hand-off.md, "Rolling upgrade"). Run in one order on both: every reply,
	 * message and key (both ways) must agree, and no hint key is left.
	 */
	@Test
	void olderEnginesChainedRequestIsReservedForAndToldAsRedisDoes() {
		for (String behind : List.of("", OTHER, QUIET_OTHER)) {
			real.flushAll();
			RedisModel model = new RedisModel(new VirtualClock(real.micros() * 1000));
			model.keyspaceEvents(true);
			List<String> channels = new ArrayList<>(LockWorkload.channels());
			channels.addAll(LockWorkload.keyspaceChannels());
			model.pubSub().subscribe("waiters", channels.toArray(new String[0]));
			List<String> differences = new ArrayList<>();
			List<String> dumped = List.of(LOCK, LOCK + ":requests", HINT);
			// The token counts from each server's clock: each side releases its own.
			String[] tokens = { "", "" };
			List<String> released = new ArrayList<>();
			for (List<String> call : chainedCalls(behind)) {
				String script = call.get(0);
				List<String> keys = call.subList(2, 2 + Integer.parseInt(call.get(1)));
				List<String> argv = call.subList(2 + keys.size(), call.size());
				List<String> sent = new ArrayList<>(List.of("EVALSHA", shas.get(script), call.get(1)));
				sent.addAll(keys);
				sent.addAll(withToken(argv, tokens[0]));
				RealRedis.Observation observed = real.call(sent, dumped);
				Object expected = CallReplay.normalize(observed.reply());
				// Redis ran the call at some time in [before, after]: the model tries its
				// start and each millisecond boundary in it, and takes the first that
				// agrees (as CallReplay does for the workloads).
				RedisModel.Snapshot snapshot = model.snapshot();
				List<String> callDifferences = List.of();
				Object reply = null;
				for (long micros : startTimes(observed)) {
					model.restore(snapshot);
					model.clock().advanceTo(Math.max(model.clock().nanos(), micros * 1000));
					reply = CallReplay.normalize(model.eval(script, keys, withToken(argv, tokens[1])));
					List<String> messages = new ArrayList<>();
					model.pubSub()
						.drain()
						.forEach((delivery) -> messages.add(delivery.channel() + " " + delivery.message()));
					List<String> found = new ArrayList<>();
					if (!java.util.Objects.equals(firstOf(script, expected), firstOf(script, reply))
							|| !messages.equals(observed.messages())) {
						found.add(script + " " + argv + ": Redis " + Replies.describe(expected) + " "
								+ observed.messages() + ", model " + Replies.describe(reply) + " " + messages);
					}
					CallReplay.compareKeys(model, observed, 3, ScriptDifferentialTests::withoutToken)
						.forEach((difference) -> found.add(script + ": " + difference));
					callDifferences = found;
					if (found.isEmpty()) {
						break;
					}
				}
				differences.addAll(callDifferences);
				if (tokens[0].isEmpty() && expected instanceof List<?> granted && reply instanceof List<?> mine) {
					tokens[0] = String.valueOf(granted.get(1));
					tokens[1] = String.valueOf(mine.get(1));
				}
				if (script.equals("release.lua")) {
					observed.messages()
						.stream()
						.filter((message) -> message.startsWith(LOCK + ":released "))
						.forEach(released::add);
				}
			}
			assertThat(differences).as("behind it: '%s'", behind).isEmpty();
			// Told whoever waits behind it.
			assertThat(released).as("the release's messages in Redis, behind it: '%s'", behind)
				.isEqualTo(List.of(LOCK + ":released reserved:" + CHAINED));
			// No hint was pushed: no key is left, in the model as in Redis.
			assertThat(KeyState.of(model.keyspace().peek(HINT), model.clock().millis())).as("the hint left").isNull();
			assertThat(real.call(List.of("EXISTS", HINT), List.of()).reply()).as("the hint left in Redis")
				.isEqualTo(0L);
		}
	}

	/**
	 * Return the times (µs) a call bracketed by {@code [before, after]} may have started
	 * at that behave differently: its start and each millisecond boundary in it.
	 */
	private static List<Long> startTimes(RealRedis.Observation observed) {
		List<Long> times = new ArrayList<>(List.of(observed.before()));
		for (long ms = observed.before() / 1000 + 1; ms <= observed.after() / 1000; ms++) {
			times.add(ms * 1000);
		}
		return times;
	}

	/**
	 * The sequence above on the model alone, every call in one millisecond: both filings
	 * then have the same score, and the older engine's request must still be first in
	 * line (see {@link #OTHER}), or its attempt is refused.
	 */
	@Test
	void olderEnginesChainedRequestTakesTheLockWithinOneMillisecond() {
		for (String behind : List.of("", OTHER, QUIET_OTHER)) {
			RedisModel model = new RedisModel(new VirtualClock(1_795_000_000_000_000_000L));
			String token = "";
			List<Object> replies = new ArrayList<>();
			for (List<String> call : chainedCalls(behind)) {
				List<String> keys = call.subList(2, 2 + Integer.parseInt(call.get(1)));
				List<String> argv = call.subList(2 + keys.size(), call.size());
				Object reply = CallReplay.normalize(model.eval(call.get(0), keys, withToken(argv, token)));
				if (token.isEmpty() && reply instanceof List<?> granted) {
					token = String.valueOf(granted.get(1));
				}
				replies.add(firstOf(call.get(0), reply));
			}
			// acquire, acquire (filed), [acquire (filed)], release, acquire (took the
			// reservation).
			List<Object> expected = new ArrayList<>(List.of(1L, 0L));
			if (!behind.isEmpty()) {
				expected.add(0L);
			}
			expected.addAll(List.of(0L, 1L));
			assertThat(replies).as("behind it: '%s'", behind).isEqualTo(expected);
			assertThat(model.keys()).as("behind it: '%s'", behind).doesNotContain(HINT);
		}
	}

	/**
	 * Return the calls of the sequence, each as script, key count, keys, args
	 * ({@link #TOKEN} for the holder's token).
	 * @param behind the request filed behind the chained one, or {@code ""} for none
	 */
	private static List<List<String>> chainedCalls(String behind) {
		List<String> acquireKeys = List.of(LOCK, "dl:{3a}:fence", LOCK + ":readers", LOCK + ":intent",
				LOCK + ":requests");
		List<String> releaseKeys = List.of(LOCK, LOCK + ":released", LOCK + ":requests", LOCK + ":readers");
		String holder = "5f0c9a2e41b7d3c8e6a1f0b2c4d6e8a0:1";
		String waiter = "5f0c9a2e41b7d3c8e6a1f0b2c4d6e8a0:7";
		List<List<String>> calls = new ArrayList<>();
		calls.add(call("acquire.lua", acquireKeys, acquire(holder, "h1", "")));
		calls.add(call("acquire.lua", acquireKeys, acquire(waiter, "h2", CHAINED)));
		if (!behind.isEmpty()) {
			calls.add(call("acquire.lua", acquireKeys, acquire(waiter + "x", "h3", behind)));
		}
		calls.add(call("release.lua", releaseKeys, List.of(holder, TOKEN, "h1", "1", "0")));
		calls.add(call("acquire.lua", acquireKeys, acquire(waiter, "h2", CHAINED)));
		return calls;
	}

	private static final String TOKEN = "<token>";

	private static List<String> withToken(List<String> argv, String token) {
		return argv.stream().map((arg) -> arg.equals(TOKEN) ? token : arg).toList();
	}

	/**
	 * Return a key as both sides compare it: the tokens, which each side takes from its
	 * own clock, masked (the lock's {@code token} field, the fencing counter).
	 */
	private static @org.jspecify.annotations.Nullable KeyState withoutToken(String key,
			@org.jspecify.annotations.Nullable KeyState state) {
		if (state == null) {
			return null;
		}
		if (key.endsWith(":fence") && state.type().equals("string")) {
			return new KeyState(state.type(), state.expireAt(), List.of("T"), state.ordered());
		}
		if (!state.type().equals("hash")) {
			return state;
		}
		List<String> contents = new ArrayList<>(state.contents());
		for (int i = 0; i + 1 < contents.size(); i += 2) {
			if (contents.get(i).equals("token")) {
				contents.set(i + 1, "T");
			}
		}
		return new KeyState(state.type(), state.expireAt(), contents, state.ordered());
	}

	private static List<String> acquire(String owner, String hold, String request) {
		return new io.github.distributedlock.redis.script.ScriptArgs.Acquire(owner, hold, 400, 5000, request, 30000,
				false, false, false, 604800000, 1)
			.argv();
	}

	private static List<String> call(String script, List<String> keys, List<String> argv) {
		List<String> call = new ArrayList<>(List.of(script, Integer.toString(keys.size())));
		call.addAll(keys);
		call.addAll(argv);
		return call;
	}

	// A refused attempt reports the remaining lease or claim, which real time changes.
	private static @org.jspecify.annotations.Nullable Object firstOf(String script,
			@org.jspecify.annotations.Nullable Object reply) {
		if (!script.equals("acquire.lua") || !(reply instanceof List<?> list) || list.isEmpty()) {
			return reply;
		}
		return list.get(0);
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
