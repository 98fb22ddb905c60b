package io.github.distributedlock.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.fail;

/**
 * Tests for how {@link RedisServers} picks a server. They run with or without a
 * {@code redis-server} installed: a launched server is the one {@link RedisBinary}
 * requires, installed or bundled.
 */
class RedisServersTests {

	private final Map<String, String> env = new HashMap<>();

	@TempDir
	Path directory;

	@Test
	void shouldPreferRedisUrl() {
		try (RedisProcess target = RedisServers.launch("--requirepass", "pw")) {
			this.env.put("REDIS_URL", "redis://:pw@127.0.0.1:" + target.port() + "/3");
			this.env.put("REDIS_SERVER", realBinary().toString());
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
		this.env.put("REDIS_SERVER", realBinary().toString());
		try (RedisServer server = start()) {
			assertThat(server).isInstanceOf(RedisProcess.class);
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void shouldFindBinaryOnPath() throws IOException {
		Path binary = executable("bin/redis-server");
		this.env.put("PATH", "/nonexistent:" + binary.getParent());
		assertThat(RedisBinary.locate(this.env::get)).isEqualTo(binary);
		this.env.put("PATH", "/nonexistent");
		assertThat(RedisBinary.locate(this.env::get)).isNull();
		this.env.put("REDIS_SERVER", "redis-server");
		this.env.put("PATH", binary.getParent().toString());
		assertThat(RedisBinary.locate(this.env::get)).isEqualTo(binary);
	}

	@Test
	void shouldFallBackToTheBundledRedisWhenNoneIsInstalled() {
		this.env.put("PATH", "/nonexistent");
		Path binary = RedisBinary.require(this.env::get);
		assertThat(binary).isEqualTo(BundledRedis.redis62());
		assertThat(RedisBinary.describe(binary)).contains("Redis 6.2.").contains("bundled in the embedded-redis jar");
		try (RedisServer server = RedisServers.start(this.env::get, () -> true,
				() -> fail("Docker must not be asked"))) {
			assertThat(server).isInstanceOf(RedisProcess.class);
			assertThat(String.valueOf(server.command("INFO", "server"))).contains("redis_version:6.2.");
		}
	}

	@Test
	void shouldRejectRedisServerThatIsNotExecutable() {
		this.env.put("REDIS_SERVER", "/nonexistent/redis-server");
		this.env.put("PATH", "/nonexistent");
		assertThatIllegalStateException().isThrownBy(this::start).withMessageContaining("/nonexistent/redis-server");
	}

	@Test
	void shouldSayWhatToInstallWhenNothingIsAvailable() {
		this.env.put("PATH", "/nonexistent");
		assertThatIllegalStateException().isThrownBy(() -> RedisServers.start(this.env::get, () -> false, () -> false))
			.withMessageContaining("apt-get install -y redis-server")
			.withMessageContaining("Linux x86-64")
			.withMessageContaining("REDIS_SERVER")
			.withMessageContaining("REDIS_URL");
	}

	@Test
	void shouldAskDockerOnlyWithoutBinary() {
		this.env.put("REDIS_SERVER", realBinary().toString());
		try (RedisServer server = RedisServers.start(this.env::get, () -> fail("The bundled Redis must not be asked"),
				() -> fail("Docker must not be asked"))) {
			assertThat(server).isInstanceOf(RedisProcess.class);
		}
	}

	private RedisServer start() {
		return RedisServers.start(this.env::get, () -> true, () -> false);
	}

	private static Path realBinary() {
		return RedisBinary.require(System::getenv);
	}

	private Path executable(String relative) throws IOException {
		Path file = this.directory.resolve(relative);
		Files.createDirectories(file.getParent());
		Files.writeString(file, "#!/bin/sh\n");
		Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
		return file;
	}

}
