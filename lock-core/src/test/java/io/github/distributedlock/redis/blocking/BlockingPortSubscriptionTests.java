package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.redis.RedisConnections;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link BlockingPort#listen}: a line hears {@code subscribed} once per subscription of
 * all its channels, so that each sends its head to try once: once when it subscribes,
 * once more after each reconnect.
 * <p>
 * The container tells its listeners of a confirmed channel on its task executor, here 100
 * ms late, so that the confirmations of a subscription made on a container already
 * listening come after {@code addMessageListener} returned.
 */
class BlockingPortSubscriptionTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final ScheduledExecutorService late = Executors.newSingleThreadScheduledExecutor();

	private LettuceConnectionFactory factory;

	private RedisMessageListenerContainer container;

	private BlockingPort port;

	private final AtomicInteger subscribed = new AtomicInteger();

	@BeforeEach
	void start() {
		this.factory = RedisConnections.standalone(redis.server());
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(this.factory);
		this.container.setTaskExecutor((Executor) (task) -> this.late.schedule(task, 100, TimeUnit.MILLISECONDS));
		this.container.setRecoveryInterval(100);
		this.container.afterPropertiesSet();
		this.container.start();
		// Listening before the line subscribes.
		this.container.addMessageListener((message, pattern) -> {
		}, new ChannelTopic("subscription-test:other"));
		assertThat(this.container.isListening()).isTrue();
		this.port = new BlockingPort(new LockCommands(new StringRedisTemplate(this.factory)), this.container,
				"subscription-test");
	}

	@AfterEach
	void stop() throws Exception {
		this.port.close();
		this.container.destroy();
		this.factory.destroy();
		this.late.shutdownNow();
	}

	@Test
	void shouldTellALineOnceThatItsChannelsAreSubscribed() throws InterruptedException {
		this.port.listen(List.of("subscription-test:a", "subscription-test:b"), listener());
		await().atMost(Duration.ofSeconds(5)).until(() -> this.subscribed.get() >= 1);
		// Past the late confirmations of both channels.
		Thread.sleep(500);
		assertThat(this.subscribed).as("times told subscribed").hasValue(1);
	}

	@Test
	void shouldTellALineOnceMoreWhenAReconnectSubscribedItsChannelsAgain() throws InterruptedException {
		this.port.listen(List.of("subscription-test:a", "subscription-test:b"), listener());
		await().atMost(Duration.ofSeconds(5)).until(() -> this.subscribed.get() >= 1);
		Thread.sleep(500);
		redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.subscribed.get() >= 2);
		Thread.sleep(500);
		assertThat(this.subscribed).as("times told subscribed").hasValue(2);
	}

	private LockPort.Listener listener() {
		return new LockPort.Listener() {

			@Override
			public void subscribed() {
				BlockingPortSubscriptionTests.this.subscribed.incrementAndGet();
			}

			@Override
			public void message(byte[] body) {
			}

			@Override
			public void lost(Throwable error) {
			}

		};
	}

}
