package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.HashSlots;
import io.github.distributedlock.redis.core.LockKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing state is bounded by the hash slots in use: locks share one counter per slot,
 * and their tokens still increase strictly, also across a lost counter.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FencingCounterTests {

	private static final String PREFIX = "fc";

	private RedisConnectionFactory connectionFactory;

	private RedisLockTemplate template;

	protected abstract TestRedis redis();

	@BeforeAll
	void startTemplate() {
		this.connectionFactory = redis().connectionFactory();
		this.template = RedisLockTemplate.builder(this.connectionFactory).keyPrefix(PREFIX).build();
	}

	@AfterAll
	void stopTemplate() throws Exception {
		this.template.close();
		if (this.connectionFactory instanceof org.springframework.beans.factory.DisposableBean disposable) {
			disposable.destroy();
		}
	}

	@Test
	void shouldLeaveAtMostOneKeyPerHashSlotAfterManyNames() throws Exception {
		int names = 20_000;
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				int first = t;
				done.add(executor.submit(() -> {
					for (int i = first; i < names; i += 4) {
						this.template.acquire(LockRequest.of("many", "n" + i)).close();
					}
					return null;
				}));
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
		Set<Integer> slotsUsed = new HashSet<>();
		for (int i = 0; i < names; i++) {
			slotsUsed.add(HashSlots.slot(this.template.lockKey(LockName.of("many", "n" + i))));
		}
		List<String> left = redis().keys(PREFIX + ":*");
		assertThat(left).as("keys left by %d names", names)
			.hasSizeLessThanOrEqualTo(slotsUsed.size())
			.hasSizeLessThanOrEqualTo(HashSlots.SLOTS)
			.allSatisfy((key) -> {
				assertThat(key).endsWith(":fence");
				assertThat(slotsUsed).contains(HashSlots.slot(key));
				assertThat(key).isEqualTo(PREFIX + ":{" + HashSlots.tag(HashSlots.slot(key)) + "}:fence");
			});
	}

	@Test
	void shouldIncreaseTokensOfEachLockAcrossALostCounter() {
		LockName name = LockName.of("lost", "a");
		String counter = LockKeys.fence(this.template.lockKey(name));
		long first = tokenOf(name);
		redis().command("DEL", counter);
		long second = tokenOf(name);
		assertThat(second).as("after the counter was deleted").isGreaterThan(first);
		redis().command("DEL", counter);
		redis().command("DEL", counter);
		assertThat(tokenOf(name)).isGreaterThan(second);
	}

	@Test
	void shouldIncreaseTokensOfLocksThatShareACounter() {
		LockName a = LockName.of("shared", "a");
		int slot = HashSlots.slot(this.template.lockKey(a));
		LockName b = null;
		for (int i = 0; b == null; i++) {
			LockName candidate = LockName.of("shared", "b" + i);
			if (HashSlots.slot(this.template.lockKey(candidate)) == slot) {
				b = candidate;
			}
		}
		String counter = LockKeys.fence(this.template.lockKey(a));
		assertThat(LockKeys.fence(this.template.lockKey(b))).isEqualTo(counter);
		long lastA = 0;
		long lastB = 0;
		for (int i = 0; i < 50; i++) {
			long tokenA = tokenOf(a);
			long tokenB = tokenOf(b);
			assertThat(tokenA).isGreaterThan(lastA).isGreaterThan(lastB);
			assertThat(tokenB).isGreaterThan(tokenA);
			lastA = tokenA;
			lastB = tokenB;
		}
		// A counter ahead of the clock (tokens handed out faster than a microsecond each)
		// is followed, not the clock.
		long ahead = lastB + 1_000_000_000L;
		redis().command("SET", counter, Long.toString(ahead));
		assertThat(tokenOf(a)).isEqualTo(ahead + 1);
		assertThat(tokenOf(b)).isEqualTo(ahead + 2);
		// A counter of fewer digits is behind the clock, though it is larger as text (the
		// script compares lengths first, then text, to read no number): the clock wins.
		redis().command("SET", counter, "999999999999999");
		assertThat(tokenOf(a)).isGreaterThan(lastB);
	}

	@Test
	void shouldFenceReadLocksAndPermitsWithTheSlotCounter() {
		LockName name = LockName.of("kinds", "k");
		String counter = LockKeys.fence(this.template.lockKey(name));
		long write = tokenOf(name);
		long read;
		try (LockHandle handle = this.template
			.acquire(LockRequest.builder("kinds").key("k").mode(io.github.distributedlock.LockMode.READ).build())) {
			read = handle.fencingToken();
		}
		long permit;
		try (LockHandle handle = this.template.acquire(LockRequest.builder("kinds").key("k").permits(2).build())) {
			permit = handle.fencingToken();
		}
		assertThat(read).isGreaterThan(write);
		assertThat(permit).isGreaterThan(read);
		assertThat(redis().command("GET", counter)).isEqualTo(Long.toString(permit));
	}

	private long tokenOf(LockName name) {
		try (LockHandle handle = this.template.acquire(LockRequest.of(name.scope(), name.key()))) {
			return handle.fencingToken();
		}
	}

}
