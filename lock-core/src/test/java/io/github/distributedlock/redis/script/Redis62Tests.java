package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;

import io.github.distributedlock.redis.ContractTopology;
import io.github.distributedlock.redis.RedisConnections;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.server.RedisVersion;
import io.github.distributedlock.test.BundledRedis;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The version check on Redis 6.2, the oldest Redis supported: the binary the
 * {@code embedded-redis} test dependency ships. {@link LockContractOtherServersTests}
 * runs the contract suite on it ({@link ContractTopology#REDIS_6_2}).
 */
class Redis62Tests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated(BundledRedis::redis62);

	@Test
	void shouldLoadEveryScriptWithTheLibraryUnderItsOwnSha() {
		redis.server().command("SCRIPT", "FLUSH");
		for (LuaScript<?> script : LockScripts.ALL) {
			String sha = new String(script.sha1(), StandardCharsets.US_ASCII);
			assertThat(redis.server().command("SCRIPT", "LOAD", new String(script.text(), StandardCharsets.UTF_8)))
				.as(script.name())
				.isEqualTo(sha);
		}
		// The library's functions run: the clock, the fencing rule and the owner check.
		String acquire = new String(LockScripts.ACQUIRE.sha1(), StandardCharsets.US_ASCII);
		Object reply = redis.server()
			.command("EVALSHA", acquire, "5", "p:{sha}", "p:{sha}:fence", "p:{sha}:readers", "p:{sha}:intent",
					"p:{sha}:requests", "me", "h1", "10000", "0", "", "30000", "0", "0", "1", "60000");
		assertThat(reply).asList().first().isEqualTo(1L);
		Object token = ((java.util.List<?>) reply).get(1);
		assertThat(redis.server().command("GET", "p:{sha}:fence")).isEqualTo(String.valueOf(token));
		String extend = new String(LockScripts.EXTEND.sha1(), StandardCharsets.US_ASCII);
		assertThat(redis.server().command("EVALSHA", extend, "1", "p:{sha}", "me", "1", "h1", "10000")).isEqualTo(-2L);
		assertThat(
				redis.server().command("EVALSHA", extend, "1", "p:{sha}", "me", String.valueOf(token), "h1", "10000"))
			.isEqualTo(1L);
	}

	@Test
	void shouldRunOnRedis62AndCheckItsVersion() {
		String info = String.valueOf(redis.server().command("INFO", "server"));
		assertThat(info).contains("redis_version:6.2.");
		LettuceConnectionFactory connectionFactory = RedisConnections.standalone(redis.server());
		try {
			assertThat(RedisVersion.check(connectionFactory)).as("versions the startup check read")
				.singleElement()
				.asString()
				.startsWith("6.2.");
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
