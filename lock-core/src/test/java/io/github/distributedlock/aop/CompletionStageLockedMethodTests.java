package io.github.distributedlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.ReactiveLockTemplate;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning {@code CompletionStage} and
 * {@code CompletableFuture}: the lock is taken on the call without blocking the caller,
 * the method runs once it is held, and the lock is released when the method's stage
 * completes, normally or not, or when the caller cancels the returned future; THROW, SKIP
 * and FALLBACK on timeout.
 */
@ExtendWith(RedisServerExtension.class)
class CompletionStageLockedMethodTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	private LettuceConnectionFactory connectionFactory;

	private RedisLockTemplate template;

	private ReactiveRedisLockTemplate reactiveTemplate;

	private AnnotationConfigApplicationContext context;

	private Jobs jobs;

	@BeforeEach
	void start(RedisServer server) {
		Jobs.calls.set(0);
		Jobs.inside.set(0);
		Jobs.maxInside.set(0);
		Jobs.pending.set(null);
		this.connectionFactory = TestRedis.connectionFactory(server);
		this.template = RedisLockTemplate.builder(this.connectionFactory).build();
		this.reactiveTemplate = ReactiveRedisLockTemplate.builder(this.connectionFactory).build();
		this.context = new AnnotationConfigApplicationContext();
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(this.context);
		this.context.registerBean(LockTemplate.class, () -> this.template);
		this.context.registerBean(ReactiveLockTemplate.class, () -> this.reactiveTemplate);
		this.context.register(DistributedLockAspectConfiguration.class, Jobs.class);
		this.context.refresh();
		this.jobs = this.context.getBean(Jobs.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
		this.reactiveTemplate.close();
		this.template.close();
		this.connectionFactory.destroy();
	}

	private ReactiveLockHandle hold(String key) {
		return this.reactiveTemplate.acquire(LockRequest.of("jobs", key)).block(BLOCK);
	}

	private boolean isFree(String key) {
		LockRequest tryOnce = LockRequest.builder("jobs").key(key).waitTime(Duration.ZERO).build();
		return this.reactiveTemplate.tryAcquire(tryOnce)
			.flatMap((handle) -> handle.release().then(Mono.just(true)))
			.blockOptional(BLOCK)
			.isPresent();
	}

	@Test
	void shouldHoldTheLockUntilEachStageCompletesSoThatConcurrentCallsNeverOverlap() {
		List<CompletableFuture<String>> calls = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			calls.add(this.jobs.work("a", i));
		}
		CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
		assertThat(calls).extracting(CompletableFuture::join).doesNotHaveDuplicates().hasSize(20);
		assertThat(Jobs.maxInside).hasValue(1);
		assertThat(Jobs.calls).hasValue(20);
	}

	@Test
	void shouldReturnAtOnceRunTheMethodOnceTheLockIsHeldAndReleaseItBeforeCompleting() {
		ReactiveLockHandle held = hold("later");
		CompletableFuture<String> call = this.jobs.work("later", 1);
		assertThat(call).isNotDone();
		assertThat(Jobs.calls).hasValue(0);
		held.release().block(BLOCK);
		assertThat(call.orTimeout(30, TimeUnit.SECONDS).join()).isEqualTo("1");
		assertThat(Jobs.calls).hasValue(1);
		// Released before the future completes.
		assertThat(isFree("later")).isTrue();
	}

	@Test
	void shouldReleaseTheLockWhenTheStageCompletesExceptionally() {
		CompletionStage<String> call = this.jobs.failing("broken");
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> call.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join())
			.withCauseExactlyInstanceOf(IllegalStateException.class)
			.withMessageContaining("broken on purpose");
		assertThat(isFree("broken")).isTrue();
	}

	@Test
	void shouldReleaseTheLockAndCancelTheMethodsStageWhenTheCallerCancels() {
		CompletableFuture<String> call = this.jobs.forever("cancel");
		await().until(() -> Jobs.pending.get() != null);
		assertThat(isFree("cancel")).isFalse();
		assertThat(call.cancel(true)).isTrue();
		await().until(() -> isFree("cancel"));
		assertThat(Jobs.pending.get()).isCancelled();
	}

	@Test
	void shouldThrowSkipOrFallBackOnTimeout() {
		ReactiveLockHandle held = hold("busy");
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> this.jobs.strict("busy").orTimeout(30, TimeUnit.SECONDS).join())
			.withCauseExactlyInstanceOf(LockTimeoutException.class);
		assertThat(this.jobs.skip("busy").orTimeout(30, TimeUnit.SECONDS).join()).isNull();
		assertThat(this.jobs.fallBack("busy").toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join())
			.isEqualTo("fallback busy");
		assertThat(Jobs.calls).hasValue(0);
		held.release().block(BLOCK);
		assertThat(this.jobs.skip("busy").orTimeout(30, TimeUnit.SECONDS).join()).isEqualTo("ran");
	}

	@Test
	void shouldFailStartupWithoutAReactiveLockTemplateNamingTheMethod() {
		try (AnnotationConfigApplicationContext blockingOnly = new AnnotationConfigApplicationContext()) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(blockingOnly);
			blockingOnly.registerBean(LockTemplate.class, () -> this.template);
			blockingOnly.register(DistributedLockAspectConfiguration.class, Jobs.class);
			assertThatExceptionOfType(BeanCreationException.class).isThrownBy(blockingOnly::refresh)
				.havingRootCause()
				.isInstanceOf(LockAnnotationException.class)
				.withMessageContaining("Jobs.work(String, int): returns CompletableFuture, whose lock is held "
						+ "through a ReactiveLockTemplate, but the context has no ReactiveLockTemplate bean")
				.withMessageContaining("Jobs.failing(String): returns CompletionStage");
		}
	}

	static class Jobs {

		// Static: the test sees the bean through its proxy, whose fields are its own.
		static final AtomicInteger calls = new AtomicInteger();

		static final AtomicInteger inside = new AtomicInteger();

		static final AtomicInteger maxInside = new AtomicInteger();

		static final AtomicReference<CompletableFuture<String>> pending = new AtomicReference<>();

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 30)
		public CompletableFuture<String> work(String id, int call) {
			calls.incrementAndGet();
			maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
			// Completed later on another thread: the lock must outlive the method's
			// return.
			return CompletableFuture.supplyAsync(() -> {
				inside.decrementAndGet();
				return String.valueOf(call);
			}, CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0)
		public CompletionStage<String> failing(String id) {
			return CompletableFuture.supplyAsync(() -> {
				throw new IllegalStateException(id + " on purpose");
			}, CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0)
		public CompletableFuture<String> forever(String id) {
			CompletableFuture<String> never = new CompletableFuture<>();
			pending.set(never);
			return never;
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0)
		public CompletableFuture<String> strict(String id) {
			calls.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public CompletableFuture<String> skip(String id) {
			calls.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0, onTimeout = OnTimeout.FALLBACK,
				fallback = "fallBackInstead")
		public CompletionStage<String> fallBack(String id) {
			calls.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		CompletionStage<String> fallBackInstead(String id) {
			return CompletableFuture.completedFuture("fallback " + id);
		}

	}

}
