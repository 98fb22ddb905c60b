package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Custom owners through the reactive template, on a real redis-server: holds of one owner
 * are one holder, whichever subscription or engine took them; they re-enter each other's
 * hold, and a nested hold never shortens the lease of the hold it re-entered.
 */
class ReactiveCustomOwnerTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private ReactiveRedisLockTemplate template;

	private StringRedisTemplate raw;

	@BeforeEach
	void connect() {
		redis.server().command("FLUSHALL");
		this.factory = RedisConnections.standalone(redis.server());
		this.template = ReactiveRedisLockTemplate.builder(this.factory).build();
		this.raw = new StringRedisTemplate(this.factory);
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.factory.destroy();
	}

	private static LockRequest.Builder lock(String key) {
		return LockRequest.builder("custom").key(key);
	}

	@Test
	void subscriptionsOfOneCustomOwnerReenterAndOthersWait() {
		LockRequest request = lock("shared").owner("job-1").lease(Duration.ofSeconds(10)).build();
		ReactiveLockHandle outer = this.template.acquire(request).block(BLOCK);
		ReactiveLockHandle inner = this.template.tryAcquire(request).block(BLOCK);
		assertThat(inner).as("a second subscription of the owner re-enters at once").isNotNull();
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		LockRequest other = lock("shared").owner("job-2").waitTime(Duration.ofMillis(200)).build();
		assertThat(this.template.tryAcquire(other).blockOptional(BLOCK)).as("another owner").isEmpty();
		assertThat(this.template.tryAcquire(lock("shared").waitTime(Duration.ZERO).build()).blockOptional(BLOCK))
			.as("a subscription of its own")
			.isEmpty();
		inner.release().block(BLOCK);
		assertThat(locked(request)).as("after the inner release").isTrue();
		outer.release().block(BLOCK);
		assertThat(locked(request)).as("after the outer release").isFalse();
	}

	@Test
	void aReactiveHoldOfACustomOwnerIsOneHolderWithTheBlockingEngines() {
		try (RedisLockTemplate blocking = RedisLockTemplate.builder(this.factory).build()) {
			LockRequest request = lock("engines").owner("job-3").lease(Duration.ofSeconds(10)).build();
			ReactiveLockHandle reactive = this.template.acquire(request).block(BLOCK);
			try (LockHandle reentered = blocking.acquire(request)) {
				assertThat(reentered.fencingToken()).isEqualTo(reactive.fencingToken());
			}
			assertThat(locked(request)).as("the blocking re-entry's release leaves the reactive hold").isTrue();
			LockHandle found = blocking.findHeld(LockName.of("custom", "engines"), "job-3").orElseThrow();
			assertThat(found.fencingToken()).isEqualTo(reactive.fencingToken());
			found.close();
			assertThat(locked(request)).as("released by whoever presents the owner").isFalse();
		}
	}

	@Test
	void aNestedHoldWithAShorterLeaseLeavesTheOuterLeaseAlone() {
		LockRequest outerRequest = lock("nested").owner("job-4").lease(Duration.ofSeconds(10)).build();
		LockRequest innerRequest = lock("nested").owner("job-4").lease(Duration.ofMillis(200)).build();
		ReactiveLockHandle outer = this.template.acquire(outerRequest).block(BLOCK);
		ReactiveLockHandle inner = this.template.acquire(innerRequest).block(BLOCK);
		assertThat(pttl(outerRequest)).as("after the nested acquisition").isGreaterThan(9_000);
		inner.release().block(BLOCK);
		assertThat(pttl(outerRequest)).as("after the nested release").isGreaterThan(9_000);
		assertThat(outer.remainingLease()).isGreaterThan(Duration.ofSeconds(9));
		outer.release().block(BLOCK);
	}

	/**
	 * A subscription of a custom owner cancelled while its re-entry is in flight releases
	 * the hold its attempt took when the reply comes, and only that one: the hold another
	 * subscription of the owner counts on keeps its count and its lease.
	 */
	@Test
	void aReentryCancelledInFlightReleasesOnlyItsOwnHold() throws InterruptedException {
		LockRequest request = lock("cancelled").owner("job-5").lease(Duration.ofSeconds(10)).build();
		ReactiveLockHandle outer = this.template.acquire(request).block(BLOCK);
		String key = this.template.lockKey(request);
		java.util.concurrent.atomic.AtomicReference<Object> delivered = new java.util.concurrent.atomic.AtomicReference<>();
		// The re-entry runs when the pause ends, after its subscriber cancelled.
		redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
		reactor.core.Disposable reentry = this.template.acquire(request).subscribe(delivered::set, delivered::set);
		Thread.sleep(200);
		reentry.dispose();
		// A write waits out the pause, as the re-entry does; its release follows its
		// reply.
		this.raw.opsForValue().set("probe", "1");
		Thread.sleep(300);
		assertThat(delivered.get()).as("what the cancelled subscriber got").isNull();
		assertThat(this.raw.opsForHash().get(key, "holds")).as("holds after the cancelled re-entry").isEqualTo("1");
		assertThat(pttl(request)).as("the outer lease").isGreaterThan(8_000);
		assertThat(outer.remainingLease()).isGreaterThan(Duration.ofSeconds(8));
		outer.release().block(BLOCK);
		assertThat(locked(request)).as("after the outer release").isFalse();
	}

	private boolean locked(LockRequest request) {
		return Boolean.TRUE.equals(this.raw.hasKey(this.template.lockKey(request)));
	}

	private long pttl(LockRequest request) {
		Long pttl = this.raw.getExpire(this.template.lockKey(request), java.util.concurrent.TimeUnit.MILLISECONDS);
		return (pttl != null) ? pttl : -2;
	}

}
