package io.github.distributedlock.test;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link ExternalRedis}.
 */
class ExternalRedisTests {

	@Test
	void shouldParseUri() {
		try (ExternalRedis redis = ExternalRedis.connect("redis://user:p%40ss@redis.example:6390/2")) {
			assertThat(redis.host()).isEqualTo("redis.example");
			assertThat(redis.port()).isEqualTo(6390);
			assertThat(redis.uri()).isEqualTo("redis://user:p%40ss@redis.example:6390/2");
			assertThat(redis).isNotInstanceOf(ManagedRedisServer.class);
		}
		try (ExternalRedis redis = ExternalRedis.connect("redis://localhost")) {
			assertThat(redis.port()).isEqualTo(6379);
		}
	}

	@Test
	void shouldRejectOtherSchemesWithoutLeakingPassword() {
		assertThatIllegalArgumentException().isThrownBy(() -> ExternalRedis.connect("rediss://:secret@host:6380"))
			.withMessageContaining("redis://")
			.withMessageNotContaining("secret");
		assertThatIllegalArgumentException().isThrownBy(() -> ExternalRedis.connect("redis://host:6380/db"))
			.withMessageContaining("database");
	}

	@Test
	void shouldAuthenticateWithUserAndPassword() {
		try (RedisProcess target = RedisServers.launch()) {
			target.command("ACL", "SETUSER", "tester", "on", ">p@ss", "~*", "+@all");
			try (ExternalRedis redis = ExternalRedis.connect("redis://tester:p%40ss@127.0.0.1:" + target.port())) {
				assertThat(redis.command("ACL", "WHOAMI")).isEqualTo("tester");
			}
			try (ExternalRedis redis = ExternalRedis.connect("redis://tester:wrong@127.0.0.1:" + target.port())) {
				assertThatExceptionOfType(RedisCommandException.class).isThrownBy(() -> redis.command("PING"))
					.withMessageContaining("WRONGPASS");
			}
		}
	}

	@Test
	void shouldOpenOwnConnectionsLoggedInOnTheDatabaseOfTheUri() {
		try (RedisProcess target = RedisServers.launch()) {
			target.command("ACL", "SETUSER", "tester", "on", ">p@ss", "~*", "+@all");
			try (ExternalRedis redis = ExternalRedis.connect("redis://tester:p%40ss@127.0.0.1:" + target.port() + "/2");
					RespConnection connection = redis.connect()) {
				assertThat(connection.command("ACL", "WHOAMI")).isEqualTo("tester");
				assertThat(connection.command("CLIENT", "INFO")).asString().contains(" db=2 ");
			}
		}
	}

}
