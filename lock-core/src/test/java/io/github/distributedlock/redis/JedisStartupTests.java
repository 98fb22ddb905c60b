package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Building a template on Jedis returns: Jedis subscribes by blocking the calling thread,
 * which used to be the thread that built the template.
 */
class JedisStartupTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private JedisConnectionFactory connectionFactory;

	@BeforeEach
	void connect() {
		this.connectionFactory = RedisConnections.jedis(redis.server());
	}

	@AfterEach
	void disconnect() {
		this.connectionFactory.destroy();
	}

	@Test
	void shouldBuildAndCloseATemplateOnJedis() {
		RedisLockTemplate template = assertTimeoutPreemptively(Duration.ofSeconds(10),
				() -> RedisLockTemplate.builder(this.connectionFactory).build(),
				"building a template on Jedis must not block in JedisConnection.subscribe");
		try (LockHandle held = template.acquire(LockRequest.builder("jedis-startup").key("a").build())) {
			assertThat(held.isHeld()).isTrue();
		}
		finally {
			assertTimeoutPreemptively(Duration.ofSeconds(10), template::close);
		}
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(redis.server().command("PUBSUB", "NUMSUB", "lock:engine")).asList()
				.as("the subscription ends with the template")
				.containsExactly("lock:engine", 0L));
	}

}
