package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Liveness edge cases of the line of requests that an adversarial review of the
 * reservation protocol found (each failed on the engine as first written): a member that
 * can't be read, a forged hint that would delay a waiter, and a multi-lock waiter's
 * request left in a line it no longer listens to.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReservationEdgeCaseTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private String scope;

	@BeforeAll
	void start() {
		for (int i = 0; i < 3; i++) {
			LettuceConnectionFactory factory = RedisConnections.standalone(redis.server().host(), redis.server().port(),
					Duration.ofSeconds(10));
			this.factories.add(factory);
			this.templates.add(RedisLockTemplate.builder(factory).build());
		}
	}

	@AfterAll
	void stop() {
		this.executor.shutdownNow();
		this.templates.forEach(RedisLockTemplate::close);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@BeforeEach
	void pickScope(TestInfo info) {
		this.scope = info.getTestMethod().orElseThrow().getName();
	}

	private LockRequest.Builder request(String key) {
		return LockRequest.builder(this.scope).key(key);
	}

	private String lockKey(String key) {
		return this.templates.get(0).lockKey(LockName.of(this.scope, key));
	}

	@Test
	void shouldDropARequestItCannotReadInsteadOfFailingTheRelease() throws Exception {
		RedisLockTemplate holder = this.templates.get(0);
		String lockKey = lockKey("k");
		LockHandle held = holder.acquire(request("k").lease(Duration.ofSeconds(20)).build());
		// Not '<claim>:<id>': the earlier engine's form, and a claim of 0.
		redis.server().command("ZADD", lockKey + ":requests", "1", "30000 7 0123abcd:42");
		redis.server().command("ZADD", lockKey + ":requests", "2", "0:zero");
		// Filed as the engine files a request: the hold is marked as one that requests
		// wait for.
		redis.server().command("HSET", lockKey, "queued", "1");
		assertThatNoException().isThrownBy(held::close);
		assertThat(redis.server().command("EXISTS", lockKey)).as("freed, reserved for nobody").isEqualTo(0L);
		assertThat(redis.server().command("EXISTS", lockKey + ":requests")).isEqualTo(0L);
	}

	@Test
	void shouldNotLetAForgedHintDelayAWaiterPastTheLeaseRedisReported() throws Exception {
		RedisLockTemplate holder = this.templates.get(0);
		RedisLockTemplate waiter = this.templates.get(1);
		String channel = lockKey("k") + ":released";
		// Never released: its 1 s lease ends by itself.
		LockHandle abandoned = holder.acquire(request("k").lease(Duration.ofMillis(1000)).build());
		long start = System.nanoTime();
		Future<Long> acquired = this.executor.submit(() -> {
			try (LockHandle handle = waiter.acquire(request("k").waitTime(Duration.ofSeconds(4)).build())) {
				return System.nanoTime() - start;
			}
		});
		Thread.sleep(300);
		// A forged hint of a 0 ms claim wakes the waiter; a busy script delays its
		// attempt, and a
		// second forged hint, of a 10 minute claim, reaches it while that attempt is in
		// flight.
		redis.server().command("PUBLISH", channel, "reserved:0:forged.a");
		redis.server()
			.command("EVAL",
					"local s = redis.call('TIME') " + "local e = tonumber(s[1]) * 1000000 + tonumber(s[2]) + 200000 "
							+ "while true do local n = redis.call('TIME') "
							+ "if tonumber(n[1]) * 1000000 + tonumber(n[2]) >= e then break end end "
							+ "return redis.call('PUBLISH', KEYS[1], 'reserved:600000:forged.b')",
					"1", channel);
		long waited = TimeUnit.NANOSECONDS.toMillis(acquired.get(10, TimeUnit.SECONDS));
		assertThat(waited).as("ms until the waiter got the lock whose lease ended after 1000 ms")
			.isBetween(900L, 2000L);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(abandoned::close);
	}

	@Test
	void shouldKeepAMultiLockRequestOnlyInTheLineOfTheLockThatBlocksIt() throws Exception {
		RedisLockTemplate first = this.templates.get(0);
		RedisLockTemplate second = this.templates.get(1);
		RedisLockTemplate multi = this.templates.get(2);
		String xRequests = lockKey("x") + ":requests";
		String yRequests = lockKey("y") + ":requests";
		// x's holder never releases: its 800 ms lease ends by itself.
		LockHandle abandoned = first.acquire(request("x").lease(Duration.ofMillis(800)).build());
		Future<LockHandle> both = this.executor
			.submit(() -> multi.acquireAll(List.of(request("x").waitTime(Duration.ofSeconds(20)).build(),
					request("y").waitTime(Duration.ofSeconds(20)).build())));
		Thread.sleep(300);
		assertThat((List<?>) redis.server().command("ZRANGE", xRequests, "0", "-1")).as("blocked by x").hasSize(1);
		LockHandle y = second.acquire(request("y").lease(Duration.ofSeconds(20)).build());
		Thread.sleep(1000);
		assertThat((List<?>) redis.server().command("ZRANGE", yRequests, "0", "-1")).as("blocked by y now").hasSize(1);
		assertThat((List<?>) redis.server().command("ZRANGE", xRequests, "0", "-1"))
			.as("x's line, which the multi-lock waiter no longer listens to")
			.isEmpty();
		LockHandle x = first.acquire(request("x").build());
		Future<Long> next = this.executor.submit(() -> {
			try (LockHandle handle = second.acquire(request("x").waitTime(Duration.ofSeconds(10)).build())) {
				return System.nanoTime();
			}
		});
		Thread.sleep(300);
		long released = System.nanoTime();
		x.close();
		assertThat(TimeUnit.NANOSECONDS.toMillis(next.get(15, TimeUnit.SECONDS) - released))
			.as("ms until the next waiter got x: no reservation for the multi-lock waiter in the way")
			.isLessThan(1000L);
		y.close();
		both.get(15, TimeUnit.SECONDS).close();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(abandoned::close);
	}

}
