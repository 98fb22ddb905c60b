package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An interrupt never leaves a lock taken by nobody until its lease ends.
 * <p>
 * A thread interrupted while it holds a lock (a cancelled task, an executor shut down
 * now) still releases it when it closes the handle, and keeps its interrupt. The driver
 * gives up on a command on an interrupted thread: the release was never run, the close
 * threw {@code LockInterruptedException}, and the lock stayed taken until its lease ran
 * out.
 * <p>
 * An acquisition on a thread interrupted before it starts is refused before anything is
 * sent: the attempt used to go out and take the lock while the caller got
 * {@code LockInterruptedException}.
 */
class InterruptedThreadTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void shouldReleaseOnAnInterruptedThread() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			LockHandle held = template.acquire(request("a").build());
			Thread.currentThread().interrupt();
			held.close();
			assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
			assertThat(redis.server().command("EXISTS", "lock:{interrupted:a}")).isEqualTo(0L);
		}
	}

	@Test
	void shouldReleaseEveryLockOfAMultiLockOnAnInterruptedThread() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			LockHandle held = template.acquireAll(List.of(request("b").build(), request("c").build()));
			Thread.currentThread().interrupt();
			held.close();
			assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
			assertThat(redis.server().command("EXISTS", "lock:{interrupted:b}", "lock:{interrupted:c}")).isEqualTo(0L);
		}
	}

	/**
	 * A release goes out as every script does, and the caller's thread tells its reply:
	 * the listeners run there, never on a client's I/O thread, interrupted or not.
	 */
	@Test
	void shouldTellTheListenersOfAReleaseOnTheCallersThread() {
		List<Thread> released = new CopyOnWriteArrayList<>();
		LockListener listener = new LockListener() {

			@Override
			public void released(LockContext context, Duration heldFor) {
				released.add(Thread.currentThread());
			}

		};
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.listener(listener)
			.build()) {
			template.acquire(request("f").build()).close();
			LockHandle held = template.acquire(request("g").build());
			Thread.currentThread().interrupt();
			held.close();
			assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
		}
		assertThat(released).containsExactly(Thread.currentThread(), Thread.currentThread());
	}

	@Test
	void shouldNotAcquireOnAThreadInterruptedBefore() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			Thread.currentThread().interrupt();
			assertThatExceptionOfType(LockInterruptedException.class)
				.isThrownBy(() -> template.acquire(request("e").build()));
			assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
			assertThat(redis.server().command("EXISTS", "lock:{interrupted:e}")).isEqualTo(0L);
		}
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("interrupted").key(key).lease(Duration.ofSeconds(30));
	}

}
