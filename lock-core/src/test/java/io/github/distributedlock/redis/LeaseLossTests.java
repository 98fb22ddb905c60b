package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.LeaseLossPolicy;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the templates do with the work when its lease is lost ({@link LeaseLossPolicy}),
 * and with a release that fails after the work ended under the lock, against a real
 * redis-server: a lock deleted behind the holder's back stands for a lost lease, and a
 * stopped server for an unreachable Redis. Leases are 600 ms, renewed every 200 ms.
 */
class LeaseLossTests {

	private static final Duration LEASE = Duration.ofMillis(600);

	private static final Duration BLOCK = Duration.ofSeconds(20);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private RedisLockTemplate template;

	private ReactiveRedisLockTemplate reactiveTemplate;

	private final List<LockName> lost = new CopyOnWriteArrayList<>();

	private final List<LockAccessException> releaseFailures = new CopyOnWriteArrayList<>();

	@BeforeEach
	void connect() {
		this.factory = RedisConnections.standalone(redis.server());
		LockDefaults defaults = LockDefaults.STANDARD.withLease(LEASE);
		LockListener listener = new LockListener() {

			@Override
			public void leaseLost(LockContext context) {
				LeaseLossTests.this.lost.add(context.name());
			}

			@Override
			public void releaseFailed(LockContext context, LockAccessException failure) {
				LeaseLossTests.this.releaseFailures.add(failure);
			}

		};
		this.template = RedisLockTemplate.builder(this.factory).defaults(defaults).listener(listener).build();
		this.reactiveTemplate = ReactiveRedisLockTemplate.builder(this.factory)
			.defaults(defaults)
			.listener(listener)
			.build();
	}

	@AfterEach
	void disconnect() {
		this.reactiveTemplate.close();
		this.template.close();
		this.factory.destroy();
		ManagedRedisServer server = redis.managedServer();
		if (!server.isRunning()) {
			server.start();
		}
		// An interrupt that escaped a test must not fail the next one.
		Thread.interrupted();
	}

	private LockRequest.Builder request(String key) {
		return LockRequest.builder("loss").key(key).waitTime(Duration.ofSeconds(5));
	}

	private CompletableFuture<Long> deleteOnceEntered(String key, CountDownLatch entered) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
				// Let a renewal or two succeed first.
				Thread.sleep(300);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			redis.server().command("DEL", this.template.lockKey(LockName.of("loss", key)));
			return System.nanoTime();
		});
	}

	@Test
	void shouldInterruptTheWorkWithinAboutARenewalPeriodWhenItsLockVanishes() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		AtomicLong interruptedAt = new AtomicLong();
		CompletableFuture<Long> deleted = deleteOnceEntered("vanishing", entered);
		LockRequest request = request("vanishing").onLeaseLost(LeaseLossPolicy.INTERRUPT).build();
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.template.execute(request, (lock) -> {
				entered.countDown();
				try {
					Thread.sleep(10_000);
					return "finished";
				}
				catch (InterruptedException ex) {
					interruptedAt.set(System.nanoTime());
					throw new IllegalStateException("interrupted", ex);
				}
			}))
			.withMessageContaining("loss:vanishing")
			.withMessageContaining("interrupted")
			.satisfies((ex) -> assertThat(ex.getSuppressed())
				.anySatisfy((suppressed) -> assertThat(suppressed).hasMessage("interrupted")));
		assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is not left set").isFalse();
		assertThat(interruptedAt.get()).as("the work was interrupted").isNotZero();
		// Found by the next renewal, 200 ms later at most; far below the 10 s of work.
		assertThat(Duration.ofNanos(interruptedAt.get() - deleted.get())).isLessThan(Duration.ofSeconds(2));
		assertThat(this.lost).containsExactly(LockName.of("loss", "vanishing"));
	}

	@Test
	void shouldLetTheWorkFinishAndFailTheReleaseWhenThePolicyIsContinue() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		AtomicBoolean finished = new AtomicBoolean();
		deleteOnceEntered("continued", entered);
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.template.execute(request("continued").build(), (lock) -> {
				entered.countDown();
				try {
					Thread.sleep(1500);
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException("interrupted", ex);
				}
				finished.set(true);
				return "finished";
			}))
			.withMessageContaining("released after");
		assertThat(finished).as("the work ran to its end").isTrue();
		assertThat(this.lost).containsExactly(LockName.of("loss", "continued"));
	}

	@Test
	void shouldInterruptTheWorkWhenALeaseThatIsNotRenewedRunsOut() {
		AtomicLong interruptedAfter = new AtomicLong();
		long start = System.nanoTime();
		LockRequest request = request("expiring").lease(LEASE).onLeaseLost(LeaseLossPolicy.INTERRUPT).build();
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.template.execute(request, (lock) -> {
				try {
					Thread.sleep(10_000);
					return "finished";
				}
				catch (InterruptedException ex) {
					interruptedAfter.set(System.nanoTime() - start);
					throw new IllegalStateException("interrupted", ex);
				}
			}));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		assertThat(Duration.ofNanos(interruptedAfter.get())).as("interrupted when the lease ran out")
			.isGreaterThan(LEASE.minusMillis(100))
			.isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void shouldNeverInterruptAThreadThatLeftTheSection() throws Exception {
		// Its lease runs out 300 ms after the work ended: a deadline that would
		// interrupt.
		LockRequest request = request("left").lease(Duration.ofMillis(400))
			.onLeaseLost(LeaseLossPolicy.INTERRUPT)
			.build();
		assertThat(this.template.<String>execute(request, (lock) -> "done")).isEqualTo("done");
		String renewed = this.template.execute(request("left-renewed").onLeaseLost(LeaseLossPolicy.INTERRUPT).build(),
				(lock) -> "done");
		assertThat(renewed).isEqualTo("done");
		// Throws InterruptedException, failing the test, if anything interrupts it now.
		Thread.sleep(LEASE.multipliedBy(2).toMillis());
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void shouldInterruptTheWorkWhenAnyLockOfAMultiLockIsLost() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		deleteOnceEntered("second", entered);
		List<LockRequest> requests = List.of(request("first").build(),
				request("second").onLeaseLost(LeaseLossPolicy.INTERRUPT).build());
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.template.executeAll(requests, (lock) -> {
				entered.countDown();
				try {
					Thread.sleep(10_000);
					return "finished";
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException("interrupted", ex);
				}
			}));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		assertThat(this.template.isLocked("loss", "first")).as("the other lock is released").isFalse();
	}

	@Test
	void shouldReturnTheResultWhenTheReleaseFailsAfterWorkThatEndedUnderTheLock() {
		// Stopping the server can take longer than the 600 ms lease on a loaded machine,
		// and then the work did not end under the lock: this test is about the release.
		String result = this.template.execute(request("unreachable").lease(Duration.ofSeconds(10)).build(), (lock) -> {
			redis.managedServer().stop();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(this.releaseFailures).singleElement()
			.satisfies((failure) -> assertThat(failure).hasMessageContaining("loss:unreachable"));
		assertThat(this.lost).isEmpty();
	}

	@Test
	void shouldReportALostLeaseWhenTheReleaseFailsAfterTheLeaseRanOutDuringTheWork() {
		LockRequest request = request("outlived").lease(Duration.ofMillis(300)).build();
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.template.execute(request, (lock) -> {
				redis.managedServer().stop();
				try {
					Thread.sleep(500);
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
				return "done";
			}))
			.withMessageContaining("ran out before the work ended")
			.withCauseInstanceOf(LockAccessException.class);
	}

	@Test
	void shouldCancelReactiveWorkWhenItsLockVanishes() throws Exception {
		AtomicBoolean cancelled = new AtomicBoolean();
		CountDownLatch entered = new CountDownLatch(1);
		CompletableFuture<Long> deleted = deleteOnceEntered("reactive", entered);
		LockRequest request = request("reactive").onLeaseLost(LeaseLossPolicy.INTERRUPT).build();
		Mono<String> work = Mono.delay(Duration.ofSeconds(10))
			.thenReturn("finished")
			.doOnSubscribe((subscription) -> entered.countDown())
			.doOnCancel(() -> cancelled.set(true));
		long start = System.nanoTime();
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.reactiveTemplate.locked(request, work).block(BLOCK))
			.withMessageContaining("cancelled");
		assertThat(cancelled).as("the work's subscription was cancelled").isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - deleted.get())).isLessThan(Duration.ofSeconds(2));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void shouldCancelReactiveWorkWhenALeaseThatIsNotRenewedRunsOut() {
		AtomicBoolean cancelled = new AtomicBoolean();
		LockRequest request = request("reactive-expiring").lease(LEASE).onLeaseLost(LeaseLossPolicy.INTERRUPT).build();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(
				() -> this.reactiveTemplate
					.execute(request,
							(lock) -> Mono.delay(Duration.ofSeconds(10))
								.thenReturn("finished")
								.doOnCancel(() -> cancelled.set(true)))
					.blockLast(BLOCK));
		assertThat(cancelled).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(LEASE.minusMillis(100))
			.isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void shouldCompleteReactiveWorkWhenTheReleaseFailsAfterItEndedUnderTheLock() {
		Mono<String> work = Mono.fromCallable(() -> {
			redis.managedServer().stop();
			return "done";
		});
		assertThat(this.reactiveTemplate.locked(request("reactive-unreachable").build(), work).block(BLOCK))
			.isEqualTo("done");
		assertThat(this.releaseFailures).singleElement()
			.satisfies((failure) -> assertThat(failure).hasMessageContaining("loss:reactive-unreachable"));
	}

}
