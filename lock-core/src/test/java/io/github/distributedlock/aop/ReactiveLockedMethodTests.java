package io.github.distributedlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockContext;
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
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning {@code Mono} and {@code Flux}: locked by
 * each subscription through the reactive template, released when the work ends or is
 * cancelled, with THROW, SKIP and FALLBACK on timeout.
 */
@ExtendWith(RedisServerExtension.class)
class ReactiveLockedMethodTests {

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

	@Test
	void shouldLockEachSubscriptionAndNeverOverlap() {
		List<Long> tokens = Flux.range(0, 50).flatMap((i) -> this.jobs.run("a"), 50).collectList().block(BLOCK);
		assertThat(tokens).hasSize(50).doesNotHaveDuplicates();
		assertThat(Jobs.maxInside).hasValue(1);
		assertThat(Jobs.calls).hasValue(50);
	}

	@Test
	void shouldNotRunTheMethodsWorkBeforeSubscription() {
		Mono<Long> notSubscribed = this.jobs.run("lazy");
		assertThat(Jobs.calls).hasValue(0);
		assertThat(
				this.reactiveTemplate.acquire(LockRequest.builder("jobs").key("lazy").waitTime(Duration.ZERO).build())
					.flatMap(ReactiveLockHandle::release)
					.then(Mono.just(true))
					.block(BLOCK))
			.isTrue();
		assertThat(notSubscribed.block(BLOCK)).isPositive();
		assertThat(Jobs.calls).hasValue(1);
	}

	@Test
	void shouldThrowSkipOrFallBackOnTimeout() {
		ReactiveLockHandle held = hold("busy");
		assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> this.jobs.strict("busy").block(BLOCK));
		assertThat(this.jobs.skip("busy").blockOptional(BLOCK)).isEmpty();
		assertThat(this.jobs.fallBack("busy").collectList().block(BLOCK)).containsExactly("fallback", "busy");
		assertThat(Jobs.calls).hasValue(0);
		held.release().block(BLOCK);
		assertThat(this.jobs.skip("busy").block(BLOCK)).isEqualTo("ran");
	}

	@Test
	void shouldReleaseTheLockWhenTheSubscriberCancels() {
		Disposable subscription = this.jobs.forever("cancel").subscribe();
		await().until(() -> Jobs.calls.get() == 1);
		LockRequest tryOnce = LockRequest.builder("jobs").key("cancel").waitTime(Duration.ZERO).build();
		assertThat(this.reactiveTemplate.tryAcquire(tryOnce).blockOptional(BLOCK)).isEmpty();
		subscription.dispose();
		await().until(() -> this.reactiveTemplate.tryAcquire(tryOnce)
			.flatMap((handle) -> handle.release().then(Mono.just(true)))
			.blockOptional(BLOCK)
			.isPresent());
	}

	@Test
	void shouldTakeEveryLockOfAKeyThatGivesSeveralOrNone() {
		assertThat(this.jobs.many(List.of("x", "y")).block(BLOCK)).isEqualTo("ran");
		assertThat(Jobs.calls).hasValue(1);
		ReactiveLockHandle y = this.reactiveTemplate.acquire(LockRequest.builder("jobs").key("y").build()).block(BLOCK);
		assertThatExceptionOfType(LockTimeoutException.class)
			.isThrownBy(() -> this.jobs.many(List.of("x", "y")).block(BLOCK))
			.satisfies((ex) -> assertThat(ex.getLockName().key()).isEqualTo("y"));
		assertThat(Jobs.calls).hasValue(1);
		assertThat(this.template.isLocked("jobs", "x")).as("none is taken").isFalse();
		y.release().block(BLOCK);
		assertThat(this.jobs.many(List.of("y", "x")).block(BLOCK)).isEqualTo("ran");
		assertThat(this.template.isLocked("jobs", "x")).isFalse();
		assertThat(this.template.isLocked("jobs", "y")).isFalse();
	}

	@Test
	void shouldLetAsManySubscriptionsInAsThereArePermits() {
		List<Long> tokens = Flux.range(0, 30).flatMap((i) -> this.jobs.limited(), 30).collectList().block(BLOCK);
		assertThat(tokens).hasSize(30).doesNotHaveDuplicates();
		assertThat(Jobs.maxInside).as("at once, of 2 permits").hasValueBetween(1, 2);
		assertThat(Jobs.calls).hasValue(30);
	}

	@Test
	void shouldFailStartupWithoutAReactiveLockTemplateNamingTheMethods() {
		try (AnnotationConfigApplicationContext blockingOnly = new AnnotationConfigApplicationContext()) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(blockingOnly);
			blockingOnly.registerBean(LockTemplate.class, () -> this.template);
			blockingOnly.register(DistributedLockAspectConfiguration.class, Jobs.class);
			assertThatExceptionOfType(BeanCreationException.class).isThrownBy(blockingOnly::refresh)
				.havingRootCause()
				.isInstanceOf(LockAnnotationException.class)
				.withMessageContaining("Jobs.strict(String): returns Mono, whose lock is held through a "
						+ "ReactiveLockTemplate, but the context has no ReactiveLockTemplate bean")
				.withMessageContaining("Jobs.fallBack(String): returns Flux");
		}
	}

	static class Jobs {

		// Static: the test sees the bean through its proxy, whose fields are its own.
		static final AtomicInteger calls = new AtomicInteger();

		static final AtomicInteger inside = new AtomicInteger();

		static final AtomicInteger maxInside = new AtomicInteger();

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 30)
		public Mono<Long> run(String id) {
			calls.incrementAndGet();
			return ReactiveLockContext.current().flatMap((lock) -> {
				maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
				return Mono.delay(Duration.ofMillis(1))
					.doOnNext((tick) -> inside.decrementAndGet())
					.thenReturn(lock.fencingToken());
			});
		}

		@DistributedLock(scope = "limited", permits = 2, waitTime = 30)
		public Mono<Long> limited() {
			calls.incrementAndGet();
			return ReactiveLockContext.current().flatMap((lock) -> {
				maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
				return Mono.delay(Duration.ofMillis(5))
					.doOnNext((tick) -> inside.decrementAndGet())
					.thenReturn(lock.fencingToken());
			});
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0)
		public Mono<String> strict(String id) {
			calls.incrementAndGet();
			return Mono.just("ran");
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public Mono<String> skip(String id) {
			calls.incrementAndGet();
			return Mono.just("ran");
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0, onTimeout = OnTimeout.FALLBACK,
				fallback = "fallBackInstead")
		public Flux<String> fallBack(String id) {
			calls.incrementAndGet();
			return Flux.just("ran");
		}

		Flux<String> fallBackInstead(String id) {
			return Flux.just("fallback", id);
		}

		@DistributedLock(scope = "jobs", key = "#ids", waitTime = 0)
		public Mono<String> many(List<String> ids) {
			calls.incrementAndGet();
			return Mono.just("ran");
		}

		@DistributedLock(scope = "jobs", key = "#id", waitTime = 0)
		public Mono<String> forever(String id) {
			calls.incrementAndGet();
			return Mono.never();
		}

	}

}
