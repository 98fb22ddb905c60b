package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration on an application that uses Jedis instead of Lettuce.
 */
@ExtendWith(RedisServerExtension.class)
// A separate thread, since a thread blocked in a Jedis subscription ignores interrupts.
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JedisAutoConfigurationTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		// Without Lettuce, Boot's Redis auto-configuration picks Jedis, as in an
		// application that swapped the client.
		this.contextRunner = TestRedis.contextRunner(server)
			.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.withPropertyValues("spring.data.redis.database=3");
	}

	@Test
	void shouldStartAndWakeWaitersOnJedis() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			LockRequest request = LockRequest.builder("jedis-app").key("a").waitTime(Duration.ofSeconds(10)).build();
			LockHandle held = template.acquire(request);
			CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
				long start = System.nanoTime();
				try (LockHandle next = template.acquire(request)) {
					return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				}
			}, TestThreads.NEW_THREAD);
			Thread.sleep(300);
			held.close();
			assertThat(waiter.get(10, TimeUnit.SECONDS)).as("woken by the release, well before its 10 s wait ran out")
				.isLessThan(5000);
		});
	}

	@Test
	void shouldReadTheDatabaseOfAJedisConnectionFactory() {
		this.contextRunner
			.run((context) -> assertThat(RedisDatabase.of(context.getBean(RedisConnectionFactory.class))).isEqualTo(3));
	}

}
