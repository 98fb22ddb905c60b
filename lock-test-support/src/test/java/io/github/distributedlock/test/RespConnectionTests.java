package io.github.distributedlock.test;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RespConnection}.
 */
class RespConnectionTests {

	private static RedisProcess redis;

	@BeforeAll
	static void launch() {
		redis = RedisServers.launch();
	}

	@AfterAll
	static void close() {
		redis.close();
	}

	@Test
	void shouldReturnErrorRepliesInsteadOfThrowing() {
		try (RespConnection connection = redis.connect()) {
			assertThat(connection.command("SET", "k", "v")).isEqualTo("OK");
			assertThat(connection.command("LPUSH", "k", "x")).isInstanceOfSatisfying(RedisCommandException.class,
					(error) -> assertThat(error.errorCode()).isEqualTo("WRONGTYPE"));
			assertThat(connection.command("GET", "k")).isEqualTo("v");
		}
	}

	@Test
	void shouldSendAPipelineInOneWrite() {
		try (RespConnection connection = RespConnection.open(redis.host(), redis.port(), Duration.ofSeconds(5))) {
			List<Object> replies = connection.pipeline(List.of(List.of("MULTI"), List.of("INCR", "counter"),
					List.of("INCRBY", "counter", "not a number"), List.of("EXEC")));
			assertThat(replies).hasSize(4);
			assertThat(replies.get(0)).isEqualTo("OK");
			assertThat(replies.get(1)).isEqualTo("QUEUED");
			assertThat(replies.get(3)).asList().hasSize(2).first().isEqualTo(1L);
		}
	}

	@Test
	void shouldReadPushedMessages() throws Exception {
		try (RespConnection subscriber = redis.connect()) {
			subscriber.send("SUBSCRIBE", "news");
			assertThat(subscriber.awaitNext()).isEqualTo(List.of("subscribe", "news", 1L));
			assertThat(redis.command("PUBLISH", "news", "héllo")).isEqualTo(1L);
			assertThat(subscriber.awaitNext()).isEqualTo(List.of("message", "news", "héllo"));
		}
	}

}
