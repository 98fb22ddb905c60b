package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read-write waits that the 'queued' mark could leave asleep although the lock was
 * released (found by an adversarial review of the mark; the first failed before the
 * writer intent counted on the free-name path). Hand-off is off, so no waiter files a
 * request and only the mark tells a release that someone waits.
 */
class ReadWriteWakeUpTests {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final Duration PROMPTLY = Duration.ofSeconds(2);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private RedisConnectionFactory connectionFactory;

	private ExecutorService executor;

	@BeforeEach
	void connect() {
		redis.server().command("FLUSHALL");
		this.connectionFactory = RedisConnections.standalone(redis.server());
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void disconnect() throws Exception {
		this.executor.shutdownNow();
		((LettuceConnectionFactory) this.connectionFactory).destroy();
	}

	@Test
	void shouldWakeAReaderHeldBackByAWriterIntentWhenTheWriterReleases() throws Exception {
		// A reader held back by a waiting writer's intent finds no lock hash to mark. The
		// writer then takes the lock through the free-name path (no line: hand-off off),
		// so
		// its hold is unmarked and its release tells nobody: the reader sleeps until the
		// intent it was told of ends (about the first reader's lease).
		try (RedisLockTemplate first = template();
				RedisLockTemplate writer = template();
				RedisLockTemplate reader = template()) {
			LockHandle reading = first.acquire(read().lease(LEASE).build());
			Future<Long> written = this.executor.submit(() -> {
				try (LockHandle hold = writer.acquire(write().waitTime(Duration.ofSeconds(9)).build())) {
					Thread.sleep(100);
				}
				return System.nanoTime();
			});
			Thread.sleep(300);
			Future<LockHandle> waiting = this.executor
				.submit(() -> reader.acquire(read().waitTime(Duration.ofSeconds(20)).build()));
			Thread.sleep(300);
			reading.close();
			long released = written.get(9, TimeUnit.SECONDS);
			try (LockHandle taken = waiting.get(20, TimeUnit.SECONDS)) {
				assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken after the writer's release")
					.isLessThan(PROMPTLY);
			}
		}
	}

	@Test
	void shouldWakeAWriterQueuedBehindADowngradeWhenTheLastReadGoes() throws Exception {
		// The writer also reads (a downgrade): its write release finds a marked hold and
		// readers, puts the request back and frees the lock; the queued writer then waits
		// for the readers without a hash to mark, and "readers-left" must wake it.
		try (RedisLockTemplate holder = template(); RedisLockTemplate waiter = template()) {
			LockHandle write = holder.acquire(write().lease(LEASE).build());
			LockHandle read = holder.acquire(read().lease(LEASE).build());
			Future<LockHandle> waiting = this.executor
				.submit(() -> waiter.acquire(write().waitTime(Duration.ofSeconds(20)).build()));
			Thread.sleep(300);
			write.close();
			Thread.sleep(300);
			assertThat(waiting.isDone()).as("the downgrade still reads").isFalse();
			long released = System.nanoTime();
			read.close();
			try (LockHandle taken = waiting.get(20, TimeUnit.SECONDS)) {
				assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken after the last read")
					.isLessThan(PROMPTLY);
			}
		}
	}

	private static LockRequest.Builder read() {
		return LockRequest.builder("rw-wake").key("intent").mode(LockMode.READ);
	}

	private static LockRequest.Builder write() {
		return LockRequest.builder("rw-wake").key("intent");
	}

	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connectionFactory)
			.handOff(false)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build();
	}

}
