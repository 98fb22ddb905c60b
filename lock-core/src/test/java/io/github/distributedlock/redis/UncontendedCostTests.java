package io.github.distributedlock.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an uncontended acquire and release cost Redis, counted with
 * {@code INFO commandstats}: the commands the scripts run, which the common path keeps to
 * what a free name needs. Prints the counts and the server's time per script call
 * (timings are reported, not asserted).
 */
class UncontendedCostTests {

	private static final int ROUNDS = 10_000;

	private static final Set<String> NOT_SCRIPT_COMMANDS = Set.of("evalsha", "eval", "fcall", "function", "info",
			"config", "hello", "client", "ping", "subscribe", "psubscribe", "unsubscribe", "punsubscribe", "script",
			"select", "command");

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldRunAnUncontendedAcquireAndReleaseInFewCommands() {
		RedisServer server = redis.server();
		LettuceConnectionFactory factory = RedisConnections.standalone(server);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			for (int i = 0; i < 100; i++) {
				template.acquire(LockRequest.of("cost", "warm-up")).close();
			}
			server.resetStats();
			double cpuBefore = cpuSeconds(server);
			for (int i = 0; i < ROUNDS; i++) {
				template.acquire(LockRequest.of("cost", "k")).close();
			}
			double cpuSeconds = cpuSeconds(server) - cpuBefore;
			Map<String, Long> calls = server.commandCalls();
			long scriptCalls = calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L)
					+ calls.getOrDefault("fcall", 0L);
			Map<String, Long> inner = new HashMap<>(calls);
			// Redis 7 counts subcommands apart ("config|resetstat").
			inner.keySet().removeIf((name) -> NOT_SCRIPT_COMMANDS.contains(name.split("\\|")[0]));
			long innerCalls = inner.values().stream().mapToLong(Long::longValue).sum();
			String evalshaStats = String.valueOf(server.command("INFO", "commandstats"))
				.lines()
				.filter((line) -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_fcall:"))
				.findFirst()
				.orElse("");
			System.out.printf(
					"Uncontended acquire+release x %d: %.2f script calls, %.2f commands inside scripts "
							+ "(%.2f in all) per acquire+release; %s; server CPU %.1f us per acquire+release; %s%n",
					ROUNDS, (double) scriptCalls / ROUNDS, (double) innerCalls / ROUNDS,
					(double) (innerCalls + scriptCalls) / ROUNDS, evalshaStats, cpuSeconds * 1e6 / ROUNDS, inner);
			assertThat(scriptCalls).isEqualTo(2L * ROUNDS);
			// EXISTS, TIME, SET ... GET, HSET and PEXPIRE to take a free name; HMGET and
			// DEL to release it: no look at the requests, and no message, for a lock that
			// no attempt found taken.
			assertThat(innerCalls).isLessThanOrEqualTo(7L * ROUNDS);
			assertThat(inner).doesNotContainKeys("zrange", "zpopmin", "zscore", "zrangebyscore", "publish");
		}
		finally {
			factory.destroy();
		}
	}

	private static double cpuSeconds(RedisServer server) {
		double seconds = 0;
		for (String line : String.valueOf(server.command("INFO", "cpu")).split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return seconds;
	}

}
