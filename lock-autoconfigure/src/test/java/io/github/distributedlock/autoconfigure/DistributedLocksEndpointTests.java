package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.ReactiveLockTemplate;
import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint.LockDescriptor;
import io.github.distributedlock.autoconfigure.actuate.ForceReleaseDistributedLocksEndpoint;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the {@code distributedlocks} endpoint shows and does, with locks taken by the
 * aspect in two instances.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLocksEndpointTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server)
			.withPropertyValues("management.endpoints.web.exposure.include=distributedlocks")
			.withBean(Jobs.class);
	}

	@Test
	void shouldListTheLocksThisInstanceHoldsAndAnswerForTheWholeCluster() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			Jobs jobs = first.getBean(Jobs.class);
			Instant before = Instant.now();
			CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> jobs.run("7"),
					TestThreads.NEW_THREAD);
			assertThat(jobs.entered().await(10, TimeUnit.SECONDS)).isTrue();
			try {
				DistributedLocksEndpoint endpoint = first.getBean(DistributedLocksEndpoint.class);
				assertThat(endpoint.heldLocks().locks()).singleElement().satisfies((held) -> {
					assertThat(held.scope()).isEqualTo("jobs");
					assertThat(held.key()).isEqualTo("7");
					assertThat(held.thread()).isEqualTo(jobs.thread());
					assertThat(held.since()).isBetween(before, Instant.now());
					assertThat(held.remainingLeaseMillis()).isPositive().isLessThanOrEqualTo(20_000);
					assertThat(held.fencingToken()).isPositive();
					assertThat(held.origin()).isEqualTo("Jobs.run");
				});
				assertThat(endpoint.lock(new String[] { "jobs", "7" }))
					.isEqualTo(new LockDescriptor("jobs", "7", true, true));
				DistributedLocksEndpoint other = second.getBean(DistributedLocksEndpoint.class);
				assertThat(other.heldLocks().locks()).isEmpty();
				assertThat(other.lock(new String[] { "jobs", "7" }))
					.isEqualTo(new LockDescriptor("jobs", "7", true, false));
				assertThat(other.lock(new String[] { "jobs", "8" }))
					.isEqualTo(new LockDescriptor("jobs", "8", false, false));
				assertThat(first).doesNotHaveBean(ForceReleaseDistributedLocksEndpoint.class);
			}
			finally {
				jobs.proceed().countDown();
			}
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done 7");
			assertThat(first.getBean(DistributedLocksEndpoint.class).heldLocks().locks()).isEmpty();
		}));
	}

	@Test
	void shouldListTheHoldsOfTheReactiveTemplateToo() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistributedLockReactiveAutoConfiguration.class))
			.run((context) -> {
				ReactiveLockHandle held = context.getBean(ReactiveLockTemplate.class)
					.acquire(LockRequest.of("jobs", "reactive"))
					.block(Duration.ofSeconds(10));
				DistributedLocksEndpoint endpoint = context.getBean(DistributedLocksEndpoint.class);
				assertThat(endpoint.heldLocks().locks()).singleElement().satisfies((lock) -> {
					assertThat(lock.scope()).isEqualTo("jobs");
					assertThat(lock.key()).isEqualTo("reactive");
					assertThat(lock.thread()).isEqualTo("reactive subscription");
					assertThat(lock.fencingToken()).isEqualTo(held.fencingToken());
				});
				assertThat(endpoint.lock(new String[] { "jobs", "reactive" }))
					.isEqualTo(new LockDescriptor("jobs", "reactive", true, true));
				held.release().block(Duration.ofSeconds(10));
				assertThat(endpoint.heldLocks().locks()).isEmpty();
			});
	}

	@Test
	void shouldReadKeysWithSlashesAndLocksOnWholeScopes() {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> jobs.run("a/b"),
					TestThreads.NEW_THREAD);
			assertThat(jobs.entered().await(10, TimeUnit.SECONDS)).isTrue();
			DistributedLocksEndpoint endpoint = context.getBean(DistributedLocksEndpoint.class);
			assertThat(endpoint.lock(new String[] { "jobs", "a", "b" }))
				.isEqualTo(new LockDescriptor("jobs", "a/b", true, true));
			assertThat(endpoint.lock(new String[] { "jobs" }))
				.isEqualTo(new LockDescriptor("jobs", null, false, false));
			jobs.proceed().countDown();
			holder.get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void shouldFreeALockAndTellItsHolderItLostItWhenForceReleaseIsEnabled() {
		this.contextRunner.withPropertyValues("distributed-lock.actuator.force-release-enabled=true").run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> jobs.run("9"),
					TestThreads.NEW_THREAD);
			assertThat(jobs.entered().await(10, TimeUnit.SECONDS)).isTrue();
			ForceReleaseDistributedLocksEndpoint endpoint = context.getBean(ForceReleaseDistributedLocksEndpoint.class);
			assertThat(endpoint.forceRelease(new String[] { "jobs", "9" }).released()).isTrue();
			assertThat(endpoint.lock(new String[] { "jobs", "9" }).locked()).isFalse();
			assertThat(endpoint.forceRelease(new String[] { "jobs", "9" }).released()).isFalse();
			jobs.proceed().countDown();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> holder.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockLeaseLostException.class);
		});
	}

	static class Jobs {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch proceed = new CountDownLatch(1);

		private volatile String thread;

		CountDownLatch entered() {
			return this.entered;
		}

		CountDownLatch proceed() {
			return this.proceed;
		}

		String thread() {
			return this.thread;
		}

		@DistributedLock(scope = "jobs", key = "#id", expire = 20)
		public String run(String id) {
			this.thread = Thread.currentThread().getName();
			this.entered.countDown();
			try {
				this.proceed.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return "done " + id;
		}

	}

}
