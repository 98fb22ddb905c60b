package io.github.distributedlock.chaos.security;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every feature of the engine once, through two templates standing in for two processes:
 * exclusive, reentrant and extended locks, a waiter woken by pub/sub, read locks (with an
 * expired reader), permits, a multi-lock, custom owners, force-release, the lease
 * watchdog and unsubscribing. Used to find which Redis commands the library needs.
 */
final class LockWorkout {

	private static final Duration LONG = Duration.ofSeconds(5);

	private final RedisConnectionFactory factory;

	private final String prefix;

	private final RedisServer admin;

	/**
	 * @param factory the connection factory, logged in as the user under test
	 * @param prefix the key prefix, inside what the user may touch
	 * @param admin the server, for checks as the default user
	 */
	LockWorkout(RedisConnectionFactory factory, String prefix, RedisServer admin) {
		this.factory = factory;
		this.prefix = prefix;
		this.admin = admin;
	}

	void run() throws Exception {
		LockDefaults defaults = LockDefaults.STANDARD.withLease(Duration.ofMillis(300));
		try (RedisLockTemplate one = template(defaults); RedisLockTemplate two = template(defaults)) {
			exclusive(one, two);
			readers(one, two);
			permits(one, two);
			multiAndOwners(one, two);
			watchdog(one);
			unsubscribed(one, two);
		}
	}

	private RedisLockTemplate template(LockDefaults defaults) {
		return RedisLockTemplate.builder(this.factory)
			.keyPrefix(this.prefix)
			.defaults(defaults)
			.subscriptionLinger(Duration.ofMillis(10))
			.build();
	}

	private void exclusive(RedisLockTemplate one, RedisLockTemplate two) throws Exception {
		LockHandle held = one.acquire(LockRequest.builder("w").key("x").lease(LONG).build());
		assertThat(one.isLocked("w", "x")).isTrue();
		assertThat(one.isHeldByCurrentThread("w", "x")).isTrue();
		one.acquire(LockRequest.builder("w").key("x").lease(LONG).build()).close();
		held.extend(LONG);
		assertThat(held.isHeld()).isTrue();
		assertThat(two.tryAcquire(LockRequest.builder("w").key("x").waitTime(Duration.ZERO).build())).isEmpty();
		CompletableFuture<Long> woken = CompletableFuture.supplyAsync(() -> {
			try (LockHandle next = two.acquire(LockRequest.builder("w").key("x").lease(LONG).waitTime(LONG).build())) {
				return System.nanoTime();
			}
		});
		await().atMost(LONG).until(() -> two.waitingThreads() == 1);
		Thread.sleep(50);
		long released = System.nanoTime();
		held.close();
		long wokenAt = woken.get(10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(wokenAt - released)).as("woken by the release, not by the lease")
			.isLessThan(Duration.ofSeconds(2));
	}

	private void readers(RedisLockTemplate one, RedisLockTemplate two) throws Exception {
		LockHandle first = one.acquire(read("r").lease(LONG).build());
		LockHandle second = two.acquire(read("r").lease(LONG).build());
		assertThat(first.isHeld()).isTrue();
		second.close();
		assertThat(two.tryAcquire(LockRequest.builder("rw").key("r").waitTime(Duration.ZERO).build()))
			.as("a writer waits for the remaining reader")
			.isEmpty();
		first.close();
		two.acquire(LockRequest.builder("rw").key("r").waitTime(LONG).build()).close();
		LockHandle expiring = one.acquire(read("e").lease(Duration.ofMillis(20)).build());
		Thread.sleep(60);
		two.acquire(read("e").lease(LONG).build()).close();
		try {
			expiring.close();
		}
		catch (LockLeaseLostException expected) {
			// Its lease had ended.
		}
	}

	private static LockRequest.Builder read(String key) {
		return LockRequest.builder("rw").key(key).mode(LockMode.READ);
	}

	private void permits(RedisLockTemplate one, RedisLockTemplate two) {
		LockHandle first = one.acquire(LockRequest.builder("sem").key("s").permits(2).lease(LONG).build());
		LockHandle second = two.acquire(LockRequest.builder("sem").key("s").permits(2).lease(LONG).build());
		assertThat(two.tryAcquire(LockRequest.builder("sem").key("s").permits(2).waitTime(Duration.ZERO).build()))
			.isEmpty();
		first.extend(LONG);
		assertThat(first.isHeld()).isTrue();
		first.close();
		second.close();
	}

	private void multiAndOwners(RedisLockTemplate one, RedisLockTemplate two) {
		one.acquireAll(java.util.List.of(LockRequest.of("m", "1"), LockRequest.of("m", "2"), LockRequest.of("m", "3")))
			.close();
		// A multi-lock that re-enters a lock its caller holds.
		try (LockHandle outer = one.acquire(LockRequest.of("m", "1"))) {
			one.acquireAll(java.util.List.of(LockRequest.of("m", "1"), LockRequest.of("m", "2"))).close();
			assertThat(outer.isHeld()).isTrue();
		}
		LockHandle job = one.acquire(LockRequest.builder("job").key("c").owner("job-1").lease(LONG).build());
		Optional<LockHandle> found = two.findHeld(LockName.of("job", "c"), "job-1");
		assertThat(found).isPresent();
		found.get().close();
		assertThat(one.isLocked("job", "c")).isFalse();
		try {
			job.close();
		}
		catch (LockLeaseLostException expected) {
			// Released through the other handle.
		}
		LockHandle forced = one.acquire(LockRequest.builder("f").key("1").lease(LONG).build());
		assertThat(two.forceRelease(LockName.of("f", "1"))).isTrue();
		try {
			forced.close();
		}
		catch (LockLeaseLostException expected) {
			// Force-released.
		}
	}

	private void watchdog(RedisLockTemplate one) throws Exception {
		try (LockHandle renewed = one.acquire(LockRequest.of("wd", "1"))) {
			Thread.sleep(450);
			assertThat(renewed.isHeld()).as("renewed past its 300 ms lease").isTrue();
		}
	}

	private void unsubscribed(RedisLockTemplate one, RedisLockTemplate two) {
		String channel = one.lockKey(LockName.of("w", "x")) + ":released";
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(
					((Number) ((java.util.List<?>) this.admin.command("PUBSUB", "NUMSUB", channel)).get(1)).longValue())
				.as("unsubscribed after the linger")
				.isZero());
	}

}
