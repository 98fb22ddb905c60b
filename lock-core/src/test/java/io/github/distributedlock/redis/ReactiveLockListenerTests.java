package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@link LockListener}s of the reactive template against a real redis-server: they
 * hear what they hear from the blocking template.
 */
class ReactiveLockListenerTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<LockContext> lost = new CopyOnWriteArrayList<>();

	private LettuceConnectionFactory factory;

	private ReactiveRedisLockTemplate template;

	private StringRedisTemplate raw;

	@BeforeEach
	void connect() {
		this.factory = RedisConnections.standalone(redis.server());
		this.template = ReactiveRedisLockTemplate.builder(this.factory).listener(new LockListener() {

			@Override
			public void acquired(LockContext context) {
				ReactiveLockListenerTests.this.events.add("acquired " + context.name() + " " + context.fencingToken());
			}

			@Override
			public void notAcquired(LockName name, Duration waited) {
				ReactiveLockListenerTests.this.events.add("not acquired " + name);
			}

			@Override
			public void released(LockContext context, Duration heldFor) {
				ReactiveLockListenerTests.this.events.add("released " + context.name() + " " + context.fencingToken());
			}

			@Override
			public void leaseLost(LockContext context) {
				ReactiveLockListenerTests.this.events.add("lost " + context.name() + " " + context.fencingToken());
				ReactiveLockListenerTests.this.lost.add(context);
			}

		}).listener(new LockListener() {

			@Override
			public void acquired(LockContext context) {
				throw new IllegalStateException("a broken listener must not break locking");
			}

		}).build();
		this.raw = new StringRedisTemplate(this.factory);
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.factory.destroy();
	}

	@Test
	void shouldTellListenersOfAcquisitionReleaseAndTimeout() {
		LockRequest request = LockRequest.builder("listened").key("1").waitTime(Duration.ZERO).build();
		ReactiveLockHandle held = this.template.acquire(request).block(BLOCK);
		assertThatExceptionOfType(LockTimeoutException.class)
			.isThrownBy(() -> this.template.acquire(request).block(BLOCK));
		held.release().block(BLOCK);
		held.release().block(BLOCK);
		assertThat(this.events).containsExactly("acquired listened:1 " + held.fencingToken(), "not acquired listened:1",
				"released listened:1 " + held.fencingToken());
	}

	@Test
	void shouldTellListenersOnceOfALeaseFoundLostAtRelease() {
		LockRequest request = LockRequest.builder("listened").key("expired").lease(Duration.ofMillis(100)).build();
		ReactiveLockHandle held = this.template.acquire(request).block(BLOCK);
		await().until(() -> !Boolean.TRUE.equals(this.raw.hasKey(this.template.lockKey(request))));
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(() -> held.release().block(BLOCK));
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> held.extend(Duration.ofSeconds(1)).block(BLOCK));
		assertThat(this.events).containsExactly("acquired listened:expired " + held.fencingToken(),
				"lost listened:expired " + held.fencingToken());
		assertThat(this.lost).singleElement().satisfies((context) -> assertThat(context.isHeld()).isFalse());
	}

	@Test
	void shouldTellListenersOfALeaseFoundLostByARenewal() {
		// Renewed every 100 ms; the renewal finds it gone.
		LockRequest request = LockRequest.builder("listened")
			.key("renewed")
			.lease(Duration.ofMillis(300))
			.autoRenew(true)
			.build();
		ReactiveLockHandle held = this.template.acquire(request).block(BLOCK);
		assertThat(this.raw.delete(this.template.lockKey(request))).isTrue();
		await().until(() -> this.events.size() == 2);
		assertThat(this.events).containsExactly("acquired listened:renewed " + held.fencingToken(),
				"lost listened:renewed " + held.fencingToken());
		assertThat(held.remainingLease()).isZero();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(() -> held.release().block(BLOCK));
		assertThat(this.events).hasSize(2);
	}

	@Test
	void shouldTellListenersOfALeaseLostUnderTheWork() {
		LockRequest request = LockRequest.builder("listened").key("work").lease(Duration.ofMillis(100)).build();
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.template.locked(request, Mono.delay(Duration.ofMillis(400)).thenReturn("late"))
				.block(BLOCK));
		assertThat(this.events).hasSize(2).last().asString().startsWith("lost listened:work ");
	}

}
