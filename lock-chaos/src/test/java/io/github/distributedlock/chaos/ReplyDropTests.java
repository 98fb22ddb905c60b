package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proxy's {@link ChaosProxy#dropReplyOnNext(String) reply drop} with a Lettuce client
 * as Spring configures it by default: the command runs twice, the commands pipelined
 * before it are answered once, and those after it run once, after the reconnect.
 */
class ReplyDropTests {

	@Test
	void shouldRunTheCommandWhoseReplyWasDroppedTwiceAndTheOthersOnce() throws Exception {
		try (RedisProcess redis = RedisServers.launch();
				ChaosProxy proxy = ChaosProxy.start(redis.port());
				CommandRuns runs = CommandRuns.start(redis)) {
			RedisClient client = RedisClient.create(RedisURI.builder()
				.withHost("127.0.0.1")
				.withPort(proxy.port())
				.withTimeout(Duration.ofSeconds(2))
				.build());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				RedisAsyncCommands<String, String> commands = connection.async();
				runs.mark();
				ReplyDrop drop = proxy.dropReplyOnNext("incr");
				connection.setAutoFlushCommands(false);
				RedisFuture<String> before = commands.set("before", "1");
				RedisFuture<Long> dropped = commands.incr("counter");
				RedisFuture<Long> after = commands.incr("after");
				connection.flushCommands();
				assertThat(dropped.get(5, TimeUnit.SECONDS)).as("the counter, incremented by both runs").isEqualTo(2);
				assertThat(before.get()).isEqualTo("OK");
				assertThat(after.get()).as("the command sent after it, run once").isEqualTo(1);
				assertThat(drop.awaitDropped(Duration.ZERO)).isTrue();
				assertThat(drop.command()).containsExactly("INCR", "counter");
				assertThat(runs.runs(List.of("SET", "before", "1"))).isEqualTo(1);
				assertThat(runs.runs(drop.command())).isEqualTo(2);
			}
			finally {
				client.shutdown();
			}
		}
	}

}
