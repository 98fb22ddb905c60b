package io.github.distributedlock.test;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.fail;

/**
 * Tests for how {@link RedisServers} picks a server.
 */
class RedisServersTests {

	private final Map<String, String> env = new HashMap<>();

	@Test
	void shouldPreferRedisUrl() {
		try (RedisProcess target = RedisServers.launch("--requirepass", "pw")) {
			this.env.put("REDIS_URL", "redis://:pw@127.0.0.1:" + target.port() + "/3");
			this.env.put("REDIS_SERVER", "/usr/bin/redis-server");
			try (RedisServer server = start()) {
				assertThat(server).isInstanceOf(ExternalRedis.class);
				assertThat(server).isNotInstanceOf(ManagedRedisServer.class);
				server.command("SET", "key", "in-db-3");
				assertThat(target.command("SELECT", "3")).isEqualTo("OK");
				assertThat(target.command("GET", "key")).isEqualTo("in-db-3");
			}
		}
	}

	@Test
	void shouldLaunchBinaryFromRedisServer() {
		this.env.put("REDIS_SERVER", "/usr/bin/redis-server");
		try (RedisServer server = start()) {
			assertThat(server).isInstanceOf(RedisProcess.class);
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void shouldFindBinaryOnPath() {
		this.env.put("PATH", "/nonexistent:/usr/bin");
		assertThat(RedisBinary.locate(this.env::get)).hasToString("/usr/bin/redis-server");
		this.env.put("PATH", "/nonexistent");
		assertThat(RedisBinary.locate(this.env::get)).isNull();
		this.env.put("REDIS_SERVER", "redis-server");
		this.env.put("PATH", "/usr/bin");
		assertThat(RedisBinary.locate(this.env::get)).hasToString("/usr/bin/redis-server");
	}

	@Test
	void shouldFindRedisCliNextToRedisServerBeforePath() {
		this.env.put("REDIS_SERVER", "/usr/bin/redis-server");
		this.env.put("PATH", "/nonexistent");
		assertThat(RedisBinary.locateCli(this.env::get)).hasToString("/usr/bin/redis-cli");
		this.env.remove("REDIS_SERVER");
		assertThat(RedisBinary.locateCli(this.env::get)).isNull();
		assertThatIllegalStateException().isThrownBy(() -> RedisBinary.requireCli(this.env::get))
			.withMessageContaining("REDIS_CLI");
		this.env.put("PATH", "/nonexistent:/usr/bin");
		assertThat(RedisBinary.locateCli(this.env::get)).hasToString("/usr/bin/redis-cli");
	}

	@Test
	void shouldPreferRedisCliVariable() {
		this.env.put("REDIS_SERVER", "/usr/bin/redis-server");
		this.env.put("REDIS_CLI", "/usr/bin/redis-server");
		assertThat(RedisBinary.locateCli(this.env::get)).hasToString("/usr/bin/redis-server");
		this.env.put("REDIS_CLI", "/nonexistent/redis-cli");
		assertThatIllegalStateException().isThrownBy(() -> RedisBinary.locateCli(this.env::get))
			.withMessageContaining("REDIS_CLI is set to '/nonexistent/redis-cli'");
	}

	@Test
	void shouldRejectRedisServerThatIsNotExecutable() {
		this.env.put("REDIS_SERVER", "/nonexistent/redis-server");
		this.env.put("PATH", "/usr/bin");
		assertThatIllegalStateException().isThrownBy(this::start).withMessageContaining("/nonexistent/redis-server");
	}

	@Test
	void shouldSayWhatToInstallWhenNothingIsAvailable() {
		this.env.put("PATH", "/nonexistent");
		assertThatIllegalStateException().isThrownBy(this::start)
			.withMessageContaining("apt-get install -y redis-server")
			.withMessageContaining("REDIS_SERVER")
			.withMessageContaining("REDIS_URL");
	}

	@Test
	void shouldAskDockerOnlyWithoutBinary() {
		this.env.put("PATH", "/usr/bin");
		try (RedisServer server = RedisServers.start(this.env::get, () -> fail("Docker must not be asked"))) {
			assertThat(server).isInstanceOf(RedisProcess.class);
		}
	}

	private RedisServer start() {
		return RedisServers.start(this.env::get, () -> false);
	}

}
