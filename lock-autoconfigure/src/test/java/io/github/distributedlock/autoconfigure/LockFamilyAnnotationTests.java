package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockLostEvent;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock family through {@code @DistributedLock}: permits (a throttle), read and write
 * modes, and the {@link LockLostEvent}.
 */
@ExtendWith(RedisServerExtension.class)
class LockFamilyAnnotationTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server).withBean(Exports.class).withBean(Catalog.class);
	}

	@Test
	void shouldRunAtMostAsManyCallsAtOnceAsAMethodHasPermits() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			ExecutorService executor = Executors.newFixedThreadPool(8);
			try {
				List<Future<?>> calls = new ArrayList<>();
				for (int i = 0; i < 16; i++) {
					calls.add(executor.submit(exports::export));
				}
				for (Future<?> call : calls) {
					call.get(30, TimeUnit.SECONDS);
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(exports.most()).isEqualTo(3);
		});
	}

	@Test
	void shouldRunReadersTogetherAndAWriterAlone() {
		this.contextRunner.run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			ExecutorService executor = Executors.newFixedThreadPool(6);
			try {
				List<Future<?>> calls = new ArrayList<>();
				for (int i = 0; i < 12; i++) {
					calls.add(executor.submit((i % 4 == 0) ? catalog::write : catalog::read));
				}
				for (Future<?> call : calls) {
					call.get(30, TimeUnit.SECONDS);
				}
			}
			finally {
				executor.shutdownNow();
			}
			// Read through getters: the bean is a proxy, whose own fields are empty.
			assertThat(catalog.mostReaders()).as("readers shared the lock").isGreaterThan(1);
			assertThat(catalog.writerSawOthers()).as("a writer never ran beside anyone").isZero();
		});
	}

	@Test
	void shouldPublishALockLostEventWhenTheWatchdogFindsALockGone() {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		this.contextRunner
			.withBean("lostEvents", ApplicationListener.class, () -> (ApplicationListener<LockLostEvent>) events::add)
			.run((context) -> {
				RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
				var held = template.acquire(
						LockRequest.builder("lost").key("1").lease(Duration.ofMillis(600)).autoRenew(true).build());
				context.getBean(org.springframework.data.redis.core.StringRedisTemplate.class)
					.delete(template.lockKey(LockName.of("lost", "1")));
				await().atMost(Duration.ofSeconds(3)).until(() -> !events.isEmpty());
				assertThat(events).singleElement().satisfies((event) -> {
					assertThat(event.getLockName()).isEqualTo(LockName.of("lost", "1"));
					assertThat(event.getFencingToken()).isEqualTo(held.fencingToken());
				});
				assertThat(held.isHeld()).isFalse();
			});
	}

	static class Exports {

		private final AtomicInteger running = new AtomicInteger();

		private final AtomicInteger most = new AtomicInteger();

		public int most() {
			return this.most.get();
		}

		@DistributedLock(scope = "exports", permits = 3, expire = 10, waitTime = 30)
		public void export() {
			this.most.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			sleep(60);
			this.running.decrementAndGet();
		}

	}

	static class Catalog {

		private final AtomicInteger readers = new AtomicInteger();

		private final AtomicInteger writers = new AtomicInteger();

		private final AtomicInteger mostReaders = new AtomicInteger();

		private final AtomicInteger writerSawOthers = new AtomicInteger();

		public int mostReaders() {
			return this.mostReaders.get();
		}

		public int writerSawOthers() {
			return this.writerSawOthers.get();
		}

		@DistributedLock(scope = "catalog", mode = LockMode.READ, expire = 10, waitTime = 30)
		public void read() {
			this.mostReaders.accumulateAndGet(this.readers.incrementAndGet(), Math::max);
			if (this.writers.get() > 0) {
				this.writerSawOthers.incrementAndGet();
			}
			sleep(80);
			this.readers.decrementAndGet();
		}

		@DistributedLock(scope = "catalog", mode = LockMode.WRITE, expire = 10, waitTime = 30)
		public void write() {
			this.writers.incrementAndGet();
			if (this.readers.get() > 0 || this.writers.get() > 1) {
				this.writerSawOthers.incrementAndGet();
			}
			sleep(40);
			this.writers.decrementAndGet();
		}

	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
