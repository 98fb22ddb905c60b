package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Two application contexts stand in for two instances of one application, each with its
 * own lock template (so its own owner id), on one real redis-server.
 */
@ExtendWith(RedisServerExtension.class)
class TwoInstancesTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server).withBean(Inventory.class);
	}

	@Test
	void shouldExcludeAcrossInstances() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			Inventory one = first.getBean(Inventory.class);
			Inventory two = second.getBean(Inventory.class);
			ExecutorService executor = Executors.newFixedThreadPool(2);
			try {
				Future<String> holder = executor.submit(() -> one.hold("sku-1"));
				assertThat(Inventory.entered.await(10, TimeUnit.SECONDS)).isTrue();
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> two.tryNow("sku-1"))
					.satisfies((ex) -> assertThat(ex.getLockName().toString()).isEqualTo("inventory:sku-1"));
				assertThat(two.skipNow("sku-1")).isNull();
				assertThat(two.tryNow("sku-2")).as("another key is another lock").isEqualTo("inventory:sku-2");
				Inventory.release.countDown();
				assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("inventory:sku-1");
				assertThat(two.tryNow("sku-1")).isEqualTo("inventory:sku-1");
			}
			finally {
				executor.shutdownNow();
			}
		}));
	}

	@Test
	void shouldNeverLetTwoInstancesIntoTheCriticalSectionAtOnce() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			List<Inventory> instances = List.of(first.getBean(Inventory.class), second.getBean(Inventory.class));
			ExecutorService executor = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> workers = new ArrayList<>();
				for (int worker = 0; worker < 4; worker++) {
					Inventory instance = instances.get(worker % 2);
					workers.add(executor.submit(() -> {
						for (int i = 0; i < 25; i++) {
							instance.decrement("sku-9");
						}
						return null;
					}));
				}
				for (Future<?> worker : workers) {
					worker.get(60, TimeUnit.SECONDS);
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(Inventory.stock).as("no lost update").isEqualTo(-100);
			assertThat(Inventory.maxInside).as("threads inside the critical section at once").hasValue(1);
		}));
	}

	/**
	 * A resource shared by both instances, standing in for a database row.
	 */
	static class Inventory {

		static final CountDownLatch entered = new CountDownLatch(1);

		static final CountDownLatch release = new CountDownLatch(1);

		static final AtomicInteger inside = new AtomicInteger();

		static final AtomicInteger maxInside = new AtomicInteger();

		static volatile int stock;

		@DistributedLock(scope = "inventory", key = "#sku", waitTime = 30)
		public String hold(String sku) throws InterruptedException {
			entered.countDown();
			assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
			return LockContext.current().name().toString();
		}

		@DistributedLock(scope = "inventory", key = "#sku", waitTime = 0)
		public String tryNow(String sku) {
			return LockContext.current().name().toString();
		}

		@DistributedLock(scope = "inventory", key = "#sku", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public String skipNow(String sku) {
			return "ran";
		}

		@DistributedLock(scope = "inventory", key = "#sku", waitTime = 30)
		public void decrement(String sku) throws InterruptedException {
			int now = inside.incrementAndGet();
			maxInside.accumulateAndGet(now, Math::max);
			int read = stock;
			// Widen the window a lost update would need.
			Thread.sleep(Duration.ofMillis(1).toMillis());
			stock = read - 1;
			inside.decrementAndGet();
		}

	}

}
