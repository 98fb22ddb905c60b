package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.redis.RedisConnections;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.server.ReactiveLockCommands;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.ReactiveRedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReactorLockPort#listen}: each line hears {@code subscribed} once when its
 * channels are subscribed and once more after each reconnect, although the shared
 * subscription connection confirms every line's channels to every line.
 */
class ReactorLockPortSubscriptionTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private ReactiveRedisMessageListenerContainer container;

	private ReactorLockPort port;

	@BeforeEach
	void start() {
		this.factory = RedisConnections.standalone(redis.server());
		this.container = new ReactiveRedisMessageListenerContainer(this.factory);
		this.port = new ReactorLockPort(new ReactiveLockCommands(this.factory), Schedulers.parallel(),
				() -> this.container);
	}

	@AfterEach
	void stop() {
		this.container.destroy();
		this.factory.destroy();
	}

	@Test
	void shouldTellEachLineOnceWhenSubscribedAndOnceMoreAfterAReconnect() throws InterruptedException {
		AtomicInteger first = listen(List.of("rounds:a", "rounds:b"));
		AtomicInteger second = listen(List.of("rounds:c", "rounds:d"));
		AtomicInteger third = listen(List.of("rounds:e"));
		// Lines that subscribe later confirm their channels to the others too.
		for (int i = 0; i < 5; i++) {
			listen(List.of("rounds:x" + i));
		}
		Thread.sleep(500);
		assertThat(List.of(first.get(), second.get(), third.get())).as("times told subscribed")
			.containsExactly(1, 1, 1);
		redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
		await().atMost(Duration.ofSeconds(10)).until(() -> first.get() >= 2 && second.get() >= 2 && third.get() >= 2);
		Thread.sleep(500);
		assertThat(List.of(first.get(), second.get(), third.get())).as("times told subscribed after a reconnect")
			.containsExactly(2, 2, 2);
	}

	private AtomicInteger listen(List<String> channels) {
		AtomicInteger subscribed = new AtomicInteger();
		this.port.listen(channels, new LockPort.Listener() {

			@Override
			public void subscribed() {
				subscribed.incrementAndGet();
			}

			@Override
			public void message(byte[] body) {
			}

			@Override
			public void lost(Throwable error) {
			}

		});
		await().atMost(Duration.ofSeconds(5)).until(() -> subscribed.get() >= 1);
		return subscribed;
	}

}
