package io.github.distributedlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LeaseLossPolicy;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTemplate;
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
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock(onLeaseLost = INTERRUPT)}: a method whose lock is deleted
 * behind its back (a lost lease) is interrupted, or its {@code Mono} or
 * {@code CompletableFuture} cancelled, and the caller gets
 * {@link LockLeaseLostException}; without it, the method runs to its end. Leases are 600
 * ms, renewed every 200 ms.
 */
@ExtendWith(RedisServerExtension.class)
class LeaseLossLockedMethodTests {

	private static final Duration BLOCK = Duration.ofSeconds(20);

	private RedisServer server;

	private LettuceConnectionFactory connectionFactory;

	private RedisLockTemplate template;

	private ReactiveRedisLockTemplate reactiveTemplate;

	private AnnotationConfigApplicationContext context;

	private Jobs jobs;

	@BeforeEach
	void start(RedisServer server) {
		this.server = server;
		Jobs.reset();
		LockDefaults defaults = LockDefaults.STANDARD.withLease(Duration.ofMillis(600));
		this.connectionFactory = TestRedis.connectionFactory(server);
		this.template = RedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
		this.reactiveTemplate = ReactiveRedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
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
		Thread.interrupted();
	}

	/**
	 * Delete the lock once the method is inside and a renewal or two went through.
	 */
	private void loseOnceEntered(String key) {
		CompletableFuture.runAsync(() -> {
			try {
				assertThat(Jobs.entered.await(10, TimeUnit.SECONDS)).isTrue();
				Thread.sleep(300);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			this.server.command("DEL", this.template.lockKey(LockName.of("loss", key)));
		});
	}

	@Test
	void shouldInterruptABlockingMethodAndThrowLockLeaseLostException() {
		loseOnceEntered("blocking");
		long start = System.nanoTime();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(() -> this.jobs.blocking("blocking"))
			.withMessageContaining("loss:blocking");
		assertThat(Jobs.interrupted).isTrue();
		assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is not left set").isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("well before the method's 10 s")
			.isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void shouldCancelAMonoMethodsSubscriptionAndErrorWithLockLeaseLostException() {
		loseOnceEntered("mono");
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(() -> this.jobs.mono("mono").block(BLOCK))
			.withMessageContaining("loss:mono");
		assertThat(Jobs.cancelled).as("the method's Mono was cancelled").isTrue();
	}

	@Test
	void shouldCancelACompletableFutureMethodsFutureAndFailTheCallersWithLockLeaseLostException() {
		loseOnceEntered("future");
		CompletableFuture<String> call = this.jobs.future("future");
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> call.orTimeout(20, TimeUnit.SECONDS).join())
			.withCauseInstanceOf(LockLeaseLostException.class);
		assertThat(Jobs.pending.get()).as("the method's own future").isCancelled();
	}

	@Test
	void shouldLetAMonoMethodFinishWithoutThePolicyAndFailAtTheRelease() {
		loseOnceEntered("continued");
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.jobs.continued("continued").block(BLOCK))
			.withMessageContaining("released after");
		assertThat(Jobs.finished).as("the method's work ran to its end").isTrue();
		assertThat(Jobs.cancelled).isFalse();
	}

	static class Jobs {

		// Static: the test sees the bean through its proxy, whose fields are its own.
		static volatile CountDownLatch entered = new CountDownLatch(1);

		static final AtomicBoolean interrupted = new AtomicBoolean();

		static final AtomicBoolean cancelled = new AtomicBoolean();

		static final AtomicBoolean finished = new AtomicBoolean();

		static final AtomicReference<CompletableFuture<String>> pending = new AtomicReference<>();

		static void reset() {
			entered = new CountDownLatch(1);
			interrupted.set(false);
			cancelled.set(false);
			finished.set(false);
			pending.set(null);
		}

		@DistributedLock(scope = "loss", key = "#key", onLeaseLost = LeaseLossPolicy.INTERRUPT)
		public String blocking(String key) {
			entered.countDown();
			try {
				Thread.sleep(10_000);
				return "finished";
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted", ex);
			}
		}

		@DistributedLock(scope = "loss", key = "#key", onLeaseLost = LeaseLossPolicy.INTERRUPT)
		public Mono<String> mono(String key) {
			return Mono.delay(Duration.ofSeconds(10))
				.thenReturn("finished")
				.doOnSubscribe((subscription) -> entered.countDown())
				.doOnCancel(() -> cancelled.set(true));
		}

		@DistributedLock(scope = "loss", key = "#key", onLeaseLost = LeaseLossPolicy.INTERRUPT)
		public CompletableFuture<String> future(String key) {
			CompletableFuture<String> never = new CompletableFuture<>();
			pending.set(never);
			entered.countDown();
			return never;
		}

		@DistributedLock(scope = "loss", key = "#key")
		public Mono<String> continued(String key) {
			return Mono.delay(Duration.ofMillis(1500))
				.doOnNext((tick) -> finished.set(true))
				.thenReturn("finished")
				.doOnSubscribe((subscription) -> entered.countDown())
				.doOnCancel(() -> cancelled.set(true));
		}

	}

}
