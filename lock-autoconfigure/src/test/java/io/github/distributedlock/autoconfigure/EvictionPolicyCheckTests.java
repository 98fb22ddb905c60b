package io.github.distributedlock.autoconfigure;

import java.util.stream.Collectors;

import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup check of the Redis {@code maxmemory-policy}: a policy that can evict lock
 * keys fails startup unless {@code distributed-lock.allow-eviction} is set, and a policy
 * that cannot be read is a warning.
 */
@ExtendWith(OutputCaptureExtension.class)
class EvictionPolicyCheckTests {

	private static final String COULD_NOT_READ = "Could not read the maxmemory-policy of Redis at ";

	// Its own server, as the tests change its policy and users.
	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private ApplicationContextRunner contextRunner;

	private RedisServer server;

	@BeforeEach
	void connect() {
		this.server = redis.server();
		this.contextRunner = TestRedis.contextRunner(this.server);
	}

	@AfterEach
	void restore() {
		this.server.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
		this.server.command("ACL", "DELUSER", "locker");
	}

	@Test
	void shouldStartWhenRedisDoesNotEvict(CapturedOutput output) {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class));
		assertThat(output).doesNotContain("maxmemory-policy");
	}

	@ParameterizedTest
	@ValueSource(strings = { "allkeys-lru", "volatile-lru", "volatile-ttl", "allkeys-lfu" })
	void shouldRefuseToStartWhenThePolicyCanEvictLockKeys(String policy) {
		this.server.command("CONFIG", "SET", "maxmemory-policy", policy);
		this.contextRunner.run((context) -> {
			FailureAnalysis analysis = analyzeFailure(context);
			assertThat(analysis.getDescription())
				.startsWith("Redis at " + address(this.server) + " has maxmemory-policy '" + policy + "'")
				.contains("can evict lock keys")
				.contains("free for a second caller while its holder still believes it holds it");
			assertThat(analysis.getAction()).contains("set maxmemory-policy noeviction on that server")
				.contains("a Redis of their own")
				.contains("set distributed-lock.allow-eviction=true to start anyway");
		});
	}

	@Test
	void shouldStartWithAWarningWhenEvictionIsAllowed(CapturedOutput output) {
		this.server.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		this.contextRunner.withPropertyValues("distributed-lock.allow-eviction=true")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class));
		assertThat(output).contains("WARN")
			.contains("Redis at " + address(this.server) + " has maxmemory-policy 'allkeys-lru', which can evict "
					+ "lock keys")
			.contains("Starting anyway because distributed-lock.allow-eviction=true");
	}

	@Test
	void shouldReadThePolicyFromInfoWhenTheAclDeniesConfig() {
		this.server.command("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
		createUser("+@all", "-@admin");
		asLocker().run((context) -> assertThat(analyzeFailure(context).getDescription())
			.contains("has maxmemory-policy 'volatile-lru'"));
	}

	@Test
	void shouldStartWithAWarningWhenTheAclDeniesConfigAndInfo(CapturedOutput output) {
		// An evicting policy, which the check would refuse if it could read it.
		this.server.command("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
		createUser("+@all", "-@admin", "-info");
		asLocker().run((context) -> assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class));
		assertThat(output).contains("WARN")
			.contains(COULD_NOT_READ + address(this.server) + " (")
			.contains("NOPERM")
			// Redis 7.0 names the subcommand; 6.2 (the bundled one) the command.
			.contains(String.valueOf(this.server.command("INFO", "server")).contains("redis_version:6.") ? "'config'"
					: "'config|get'")
			.contains("'info'")
			.contains("Redis deletes lock keys when memory runs short, and a second caller then takes a lock that "
					+ "is still held")
			.contains("Make sure the server's maxmemory-policy is noeviction");
	}

	@Test
	void shouldReadThePolicyFromInfoWhenConfigIsRenamed() {
		// As managed Redis does: CONFIG is gone, INFO remains.
		try (RedisProcess renamed = RedisServers.launch("--rename-command", "CONFIG", "", "--maxmemory-policy",
				"allkeys-random")) {
			new ApplicationContextRunner().withConfiguration(TestRedis.ALL)
				.withPropertyValues(TestRedis.properties(renamed))
				.run((context) -> assertThat(analyzeFailure(context).getDescription())
					.startsWith("Redis at " + address(renamed) + " has maxmemory-policy 'allkeys-random'"));
		}
	}

	@Test
	void shouldCheckEveryMasterOfACluster(CapturedOutput output) {
		try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
			String nodes = cluster.masters()
				.stream()
				.map(EvictionPolicyCheckTests::address)
				.collect(Collectors.joining(","));
			ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(TestRedis.ALL)
				.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "spring.data.redis.timeout=2s");
			runner.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class));
			// The last master: not the node a connection to the first address lands on.
			RedisProcess evicting = cluster.masters().get(RedisClusterTopology.MASTERS - 1);
			evicting.command("CONFIG", "SET", "maxmemory-policy", "volatile-lfu");
			runner.run((context) -> assertThat(analyzeFailure(context).getDescription())
				.startsWith("Redis at " + address(evicting) + " has maxmemory-policy 'volatile-lfu'"));
		}
		assertThat(output).doesNotContain(COULD_NOT_READ);
	}

	private ApplicationContextRunner asLocker() {
		return this.contextRunner.withPropertyValues("spring.data.redis.username=locker",
				"spring.data.redis.password=secret");
	}

	private void createUser(String... rules) {
		String[] command = new String[] { "ACL", "SETUSER", "locker", "reset", "on", ">secret", "~*", "&*" };
		String[] all = new String[command.length + rules.length];
		System.arraycopy(command, 0, all, 0, command.length);
		System.arraycopy(rules, 0, all, command.length, rules.length);
		this.server.command(all);
	}

	private static FailureAnalysis analyzeFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new EvictingRedisFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis;
	}

	private static String address(RedisServer server) {
		return server.host() + ":" + server.port();
	}

}
