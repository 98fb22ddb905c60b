package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.stream.Stream;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link HandOffSafetyTests} on a standalone redis-server.
 */
class HandOffSafetyPubSubTests extends HandOffSafetyTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Override
	protected TestRedis redis() {
		return TestRedis.standalone(redis::server);
	}

	@Override
	protected LettuceConnectionFactory newFactory(Duration commandTimeout) {
		return RedisConnections.standalone(redis.server().host(), redis.server().port(), commandTimeout);
	}

	@Override
	protected String childSpec() {
		return "standalone:" + redis.server().host() + ":" + redis.server().port();
	}

	@Override
	protected RedisServer nodeFor(String key) {
		return redis.server();
	}

	@Override
	protected boolean runsDriverOnlyChecks() {
		return true;
	}

	@Override
	protected boolean stallsSafely() {
		return true;
	}

	@Override
	Stream<Long> pauses() {
		// Just below, at and just above the claim of a reservation.
		long claim = HandOffRequest.CLAIM_MILLIS;
		return Stream.of(claim - 200, claim, claim + 300);
	}

}
