package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLostEvent;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.context.ApplicationListener;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockLostEvent} listeners run off the watchdog thread, so a slow one cannot hold
 * up the renewal of other leases.
 */
@ExtendWith(RedisServerExtension.class)
class LockLostEventTests {

	private static final Duration LEASE = Duration.ofMillis(600);

	@Test
	void shouldStillRenewOtherLeasesWhenALockLostListenerIsSlow(RedisServer server) {
		List<String> listenerThreads = new CopyOnWriteArrayList<>();
		CountDownLatch release = new CountDownLatch(1);
		ApplicationListener<LockLostEvent> slowListener = (event) -> {
			listenerThreads.add(Thread.currentThread().getName());
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		};
		TestRedis.contextRunner(server)
			.withBean("slowLostListener", ApplicationListener.class, () -> slowListener)
			.run((context) -> {
				RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
				StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
				LockHandle lost = template.acquire(renewed("lost"));
				LockHandle kept = template.acquire(renewed("kept"));
				try {
					redis.delete(template.lockKey(LockName.of("lost", "1")));
					await().atMost(Duration.ofSeconds(5)).until(() -> !listenerThreads.isEmpty());
					// While the listener is still busy, several leases' worth of time
					// passes.
					Thread.sleep(LEASE.multipliedBy(4).toMillis());
					assertThat(redis.hasKey(template.lockKey(LockName.of("kept", "1"))))
						.as("the other lock's lease was renewed while the listener ran")
						.isTrue();
					assertThat(kept.isHeld()).isTrue();
					assertThat(listenerThreads).singleElement().isNotEqualTo("distributed-lock-watchdog");
				}
				finally {
					release.countDown();
				}
				kept.close();
				assertThat(lost.isHeld()).isFalse();
			});
	}

	private static LockRequest renewed(String scope) {
		return LockRequest.builder(scope).key("1").lease(LEASE).autoRenew(true).build();
	}

}
