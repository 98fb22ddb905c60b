package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On context close, waiters stop waiting with a clear exception, while a method still
 * holding a lock finishes and releases it: nothing is left behind.
 */
@ExtendWith(RedisServerExtension.class)
class GracefulShutdownTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server).withUserConfiguration(WorkConfiguration.class);
	}

	@Test
	void shouldFailWaitersAndLetRunningHoldersReleaseOnClose(RedisServer server) {
		this.contextRunner.run((context) -> {
			Work work = context.getBean(Work.class);
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			String lockKey = template.lockKey(LockName.of("work", null));
			Drain drain = context.getBean(Drain.class);
			drain.holder = CompletableFuture.supplyAsync(work::hold, TestThreads.NEW_THREAD);
			assertThat(work.entered().await(10, TimeUnit.SECONDS)).isTrue();
			drain.waiter = CompletableFuture.supplyAsync(work::waitForIt, TestThreads.NEW_THREAD);
			await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);

			context.close();

			assertThat(drain.waiterFailureBeforeHolderFinished).isInstanceOf(LockAccessException.class)
				.hasMessageContaining("shut down");
			assertThat(drain.holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(server.command("EXISTS", lockKey)).as("the lock left in Redis").isEqualTo(0L);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class WorkConfiguration {

		@Bean
		Work work() {
			return new Work();
		}

		@Bean
		Drain drain(Work work) {
			return new Drain(work);
		}

	}

	static class Work {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch proceed = new CountDownLatch(1);

		CountDownLatch entered() {
			return this.entered;
		}

		CountDownLatch proceed() {
			return this.proceed;
		}

		@DistributedLock(scope = "work", waitTime = 30)
		public String hold() {
			this.entered.countDown();
			try {
				this.proceed.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return "done";
		}

		@DistributedLock(scope = "work", waitTime = 30)
		public String waitForIt() {
			return "got it";
		}

	}

	/**
	 * Stands in for an executor that lets its running tasks finish when the context
	 * stops: it stops after the lock template is closed.
	 */
	static class Drain implements SmartLifecycle {

		private final Work work;

		volatile CompletableFuture<String> holder;

		volatile CompletableFuture<String> waiter;

		volatile Throwable waiterFailureBeforeHolderFinished;

		private volatile boolean running;

		Drain(Work work) {
			this.work = work;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			try {
				this.waiter.get(5, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				if (!this.holder.isDone()) {
					this.waiterFailureBeforeHolderFinished = ex.getCause();
				}
			}
			catch (InterruptedException | TimeoutException ex) {
				throw new IllegalStateException(ex);
			}
			this.work.proceed().countDown();
			this.holder.join();
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return LockTemplateShutdown.PHASE - 1;
		}

	}

}
