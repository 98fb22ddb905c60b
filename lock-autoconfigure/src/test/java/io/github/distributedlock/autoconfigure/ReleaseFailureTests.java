package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockLostEvent;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockReleaseFailedEvent;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis that dies while an annotated method holds its lock: the method's work ran
 * wholly under the lock, so the caller gets its result, and a
 * {@link LockReleaseFailedEvent} (not a {@link LockLostEvent}) tells that the lock stays
 * until its lease ends.
 */
class ReleaseFailureTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@AfterEach
	void restart() {
		ManagedRedisServer server = redis.managedServer();
		if (!server.isRunning()) {
			server.start();
		}
	}

	@Test
	void shouldReturnTheResultAndPublishAnEventWhenRedisDiesDuringTheHold() {
		List<ApplicationEvent> events = new CopyOnWriteArrayList<>();
		ApplicationListener<ApplicationEvent> listener = (event) -> {
			if (event instanceof LockReleaseFailedEvent || event instanceof LockLostEvent) {
				events.add(event);
			}
		};
		TestRedis.contextRunner(redis.server())
			.withBean(Exports.class)
			.withBean("lockEvents", ApplicationListener.class, () -> listener)
			.run((context) -> {
				assertThat(context.getBean(Exports.class).export()).isEqualTo("exported");
				await().atMost(Duration.ofSeconds(5)).until(() -> !events.isEmpty());
				assertThat(events).singleElement().isInstanceOfSatisfying(LockReleaseFailedEvent.class, (event) -> {
					assertThat(event.getLockName()).isEqualTo(LockName.of("export", null));
					assertThat(event.getFailure()).hasMessageContaining("release");
				});
			});
	}

	static class Exports {

		@DistributedLock(scope = "export")
		public String export() throws InterruptedException {
			redis.managedServer().kill();
			// The rest of the work, done while Redis is down, well within the lease.
			Thread.sleep(300);
			return "exported";
		}

	}

}
