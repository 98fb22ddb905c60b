package io.github.distributedlock.chaos.input;

import java.time.Duration;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A Redis that is down, stalled or out of memory: callers get a clear exception within
 * the command timeout, never a hang, and the template never believes it holds a lock that
 * Redis does not give it.
 */
class RedisTroubleTests {

	private static final Duration WITHIN_TIMEOUT = Connections.COMMAND_TIMEOUT.plusMillis(1500);

	private RedisProcess redis;

	private LettuceConnectionFactory factory;

	private RedisLockTemplate template;

	private void start(String... args) {
		this.redis = RedisServers.launch(args);
		this.factory = Connections.standalone(this.redis.port());
		this.template = RedisLockTemplate.builder(this.factory).build();
	}

	@AfterEach
	void stop() {
		if (this.redis == null) {
			// Skipped before it started a server.
			return;
		}
		if (this.redis.isRunning()) {
			this.redis.resume();
		}
		this.template.close();
		this.factory.destroy();
		this.redis.close();
	}

	@Test
	void shouldFailWithinTheTimeoutWhenRedisIsDownAndBelieveNothingHeld() {
		start();
		this.redis.stop();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAccessException.class)
			.isThrownBy(() -> this.template.acquire(LockRequest.of("down", "1")))
			.withMessageContaining("down:1");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WITHIN_TIMEOUT);
		assertThat(this.template.heldLocks()).isEmpty();
		this.redis.start();
		assertThat(this.template.isLocked("down", "1")).isFalse();
	}

	@Test
	void shouldFailWithinTheTimeoutWhenRedisStallsAndReleaseTheLateGrantOnceRedisAnswers() {
		start();
		warmUp();
		this.redis.pause();
		long start = System.nanoTime();
		Duration lease = Duration.ofSeconds(3);
		assertThatExceptionOfType(LockAccessException.class)
			.isThrownBy(() -> this.template.acquire(LockRequest.builder("stalled").key("1").lease(lease).build()))
			.withMessageContaining("stalled:1");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WITHIN_TIMEOUT);
		assertThat(this.template.heldLocks()).as("nothing believed held").isEmpty();
		this.redis.resume();
		// The script the client gave up on runs when Redis wakes, and the driver undoes
		// it by its hold id (one more attempt with it, then its release): the lock is
		// free long before that hold's lease would have ended.
		await().atMost(Duration.ofSeconds(1))
			.untilAsserted(() -> assertThat(this.template.isLocked("stalled", "1")).isFalse());
		assertThat(this.template.heldLocks()).as("still nothing believed held").isEmpty();
	}

	@Test
	void shouldFreeTheLockWhenTheHoldThatFollowedATimedOutAcquireIsReleased() {
		start();
		LockRequest request = LockRequest.builder("ghost").key("1").lease(Duration.ofSeconds(30)).build();
		warmUp();
		this.redis.pause();
		assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> this.template.acquire(request));
		this.redis.resume();
		try (LockHandle held = this.template.acquire(request)) {
			assertThat(held.isHeld()).isTrue();
		}
		assertThat(this.template.isLocked("ghost", "1")).as("free once its only believed hold is released").isFalse();
	}

	@Test
	void shouldFailClearlyWhenRedisIsOutOfMemoryAndBelieveNothingHeld() {
		// Redis 6.2 let the acquire script write on a full server in this test.
		RedisServers.assumeAtLeast(7, "Refusing a lock on a full Redis");
		start("--maxmemory-policy", "noeviction");
		LockHandle before = this.template
			.acquire(LockRequest.builder("oom").key("before").lease(Duration.ofSeconds(30)).build());
		fill();
		assertThatExceptionOfType(LockAccessException.class)
			.isThrownBy(() -> this.template.acquire(LockRequest.of("oom", "1")))
			.withMessageContaining("oom:1")
			.withMessageContaining("OOM command not allowed")
			.havingRootCause()
			.withMessageContaining("OOM");
		assertThat(this.template.heldLocks()).as("only the hold taken before").hasSize(1);
		assertThat(this.template.isLocked("oom", "1")).isFalse();
		assertThat(this.template.isHeldByCurrentThread("oom", "1")).isFalse();
		before.extend(Duration.ofSeconds(20));
		assertThat(before.isHeld()).as("extending needs no memory").isTrue();
		this.redis.command("CONFIG", "SET", "maxmemory", "0");
		before.close();
		assertThat(this.template.isLocked("oom", "before")).isFalse();
	}

	@Test
	void shouldReleaseALockWhileRedisIsOutOfMemory() {
		start("--maxmemory-policy", "noeviction");
		LockHandle held = this.template
			.acquire(LockRequest.builder("oom").key("held").lease(Duration.ofSeconds(30)).build());
		fill();
		held.close();
		assertThat(this.template.isLocked("oom", "held")).as("released although Redis is full").isFalse();
	}

	/**
	 * Load the lock scripts into Redis's script cache, as in an application that has been
	 * running a while.
	 */
	private void warmUp() {
		this.template.acquire(LockRequest.of("warm", "up")).close();
	}

	/**
	 * Cap Redis's memory just above what it uses (a 1 MB cap is below what an empty Redis
	 * 7 uses with a few clients) and write until it refuses writes.
	 */
	private void fill() {
		String used = String.valueOf(this.redis.command("INFO", "memory"))
			.lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.findFirst()
			.orElseThrow()
			.substring("used_memory:".length())
			.trim();
		this.redis.command("CONFIG", "SET", "maxmemory", Long.toString(Long.parseLong(used) + 256 * 1024));
		String value = "x".repeat(10_000);
		for (int i = 0; i < 10_000; i++) {
			try {
				this.redis.command("SET", "filler:" + i, value);
			}
			catch (RuntimeException ex) {
				assertThat(ex).hasMessageContaining("OOM");
				return;
			}
		}
		throw new IllegalStateException("Redis never ran out of memory");
	}

}
