package io.github.distributedlock.redis.server;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The minimum Redis version check. Servers of 6.2 and 7.0 pass it in the contract suites;
 * no older server ships with the build, so older versions are checked here as text.
 */
class RedisVersionTests {

	@Test
	void shouldRefuseRedisOlderThan62() {
		for (String version : new String[] { "6.0.16", "5.0.14", "6.1.9", "6" }) {
			assertThatIllegalStateException().isThrownBy(() -> RedisVersion.check(version))
				.withMessageContaining("Redis " + version + " is too old")
				.withMessageContaining("Redis 6.2 or later");
		}
	}

	@Test
	void shouldAccept62AndLater() {
		for (String version : new String[] { "6.2.0", "6.2.11", "7.0.15", "7.2.4", "10.0.0", "255.255.255" }) {
			assertThatNoException().as(version).isThrownBy(() -> RedisVersion.check(version));
		}
	}

	@Test
	void shouldLeaveAVersionItCannotReadToTheServer() {
		assertThatNoException().isThrownBy(() -> RedisVersion.check("unstable"));
		assertThatNoException().isThrownBy(() -> RedisVersion.check((String) null));
	}

}
