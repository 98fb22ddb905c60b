package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisCommandException;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import io.github.distributedlock.test.RespConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What Redis eviction does to a held lock, the hazard that the startup check of
 * {@code maxmemory-policy} in the auto-configuration guards against: under an evicting
 * policy, memory pressure deletes the lock key (it has a TTL, so {@code volatile-*}
 * policies pick it first), a second caller takes the lock, and the first holder is not
 * told until it releases; under {@code noeviction} the writes that fill memory fail
 * instead, and the lock stays.
 */
class EvictionTests {

	private static final LockName NAME = LockName.of("eviction", "1");

	// Explicit, so that no watchdog renews it: the holder believes it holds the lock for
	// this long.
	private static final Duration LEASE = Duration.ofSeconds(30);

	// Room above the memory in use when the limit is set: a few hundred fillers.
	private static final long HEADROOM_BYTES = 256 * 1024;

	private static final String FILLER = "x".repeat(1024);

	// 16 MiB of fillers at most, far more than the headroom.
	private static final int MAX_FILLERS = 16 * 1024;

	private static final int BATCH = 32;

	private static final Pattern USED_MEMORY = Pattern.compile("^used_memory:(\\d+)\\r?$", Pattern.MULTILINE);

	private static final Pattern EVICTED_KEYS = Pattern.compile("^evicted_keys:(\\d+)\\r?$", Pattern.MULTILINE);

	private RedisProcess redis;

	private LettuceConnectionFactory firstFactory;

	private LettuceConnectionFactory secondFactory;

	private RedisLockTemplate first;

	private RedisLockTemplate second;

	@BeforeEach
	void start() {
		this.redis = RedisServers.launch();
		this.firstFactory = Connections.standalone(this.redis.port());
		this.secondFactory = Connections.standalone(this.redis.port());
		this.first = RedisLockTemplate.builder(this.firstFactory).build();
		this.second = RedisLockTemplate.builder(this.secondFactory).build();
	}

	@AfterEach
	void stop() {
		this.first.close();
		this.second.close();
		this.firstFactory.destroy();
		this.secondFactory.destroy();
		this.redis.close();
	}

	@Test
	void shouldLetASecondCallerTakeALockWhoseKeyWasEvicted() {
		LockHandle held = this.first.acquire(request());
		String lockKey = this.first.lockKey(NAME);
		limitMemory("volatile-lru");
		Filling filling = fillUntil(() -> !exists(lockKey));
		assertThat(exists(lockKey)).as("lock key gone after %d fillers", filling.written()).isFalse();
		assertThat(evictedKeys()).as("keys Redis evicted (the lease had %s left)", held.remainingLease()).isPositive();
		// The pressure passes (the cache entries that filled memory are deleted), and the
		// lock is simply free.
		delete(filling);
		Optional<LockHandle> taken = this.second.tryAcquire(request());
		assertThat(taken).as("a second caller takes the lock its first holder still believes it holds").isPresent();
		assertThat(held.remainingLease()).as("what the first holder believes it has left")
			.isGreaterThan(LEASE.minusSeconds(10));
		assertThat(held.isHeld()).as("what Redis says when asked").isFalse();
		assertThat(taken.get().fencingToken()).as("fencing still tells the holders apart")
			.isGreaterThan(held.fencingToken());
		assertThatExceptionOfType(LockLeaseLostException.class).as("the first holder learns it when it releases")
			.isThrownBy(held::close);
		taken.get().close();
	}

	@Test
	void shouldFailTheWritesAndKeepTheLockWhenRedisDoesNotEvict() {
		LockHandle held = this.first.acquire(request());
		String lockKey = this.first.lockKey(NAME);
		limitMemory("noeviction");
		Filling filling = fillUntil(() -> false);
		assertThat(filling.error()).as("the write that found memory full after %d fillers", filling.written())
			.isNotNull()
			.startsWith("OOM command not allowed when used memory > 'maxmemory'");
		assertThat(exists(lockKey)).as("lock key kept").isTrue();
		assertThat(evictedKeys()).as("keys Redis evicted").isZero();
		assertThat(held.isHeld()).isTrue();
		delete(filling);
		assertThat(this.second.tryAcquire(request())).as("the lock is still taken").isEmpty();
		held.close();
		assertThat(exists(lockKey)).as("released by its holder").isFalse();
	}

	private static LockRequest request() {
		return LockRequest.builder(NAME.scope()).key(NAME.key()).lease(LEASE).waitTime(Duration.ZERO).build();
	}

	private void limitMemory(String policy) {
		String info = String.valueOf(this.redis.command("INFO", "memory"));
		Matcher used = USED_MEMORY.matcher(info);
		assertThat(used.find()).as("used_memory in %s", info).isTrue();
		this.redis.command("CONFIG", "SET", "maxmemory-policy", policy);
		this.redis.command("CONFIG", "SET", "maxmemory",
				String.valueOf(Long.parseLong(used.group(1)) + HEADROOM_BYTES));
	}

	/**
	 * Write fillers without a TTL, in batches, until the condition holds or a write
	 * fails.
	 */
	private Filling fillUntil(BooleanSupplier done) {
		List<String> keys = new ArrayList<>();
		try (RespConnection connection = this.redis.connect()) {
			while (keys.size() < MAX_FILLERS) {
				List<List<String>> batch = new ArrayList<>(BATCH);
				for (int i = 0; i < BATCH; i++) {
					batch.add(List.of("SET", "filler:" + (keys.size() + i), FILLER));
				}
				List<@Nullable Object> replies = connection.pipeline(batch);
				for (int i = 0; i < replies.size(); i++) {
					if (replies.get(i) instanceof RedisCommandException error) {
						return new Filling(keys, error.getMessage());
					}
					keys.add(batch.get(i).get(1));
				}
				if (done.getAsBoolean()) {
					return new Filling(keys, null);
				}
			}
		}
		return new Filling(keys, null);
	}

	private boolean exists(String key) {
		return Long.valueOf(1).equals(this.redis.command("EXISTS", key));
	}

	/**
	 * Delete fillers ({@code DEL} is allowed when memory is full).
	 */
	private void delete(Filling filling) {
		List<String> keys = filling.keys();
		for (int from = 0; from < keys.size(); from += BATCH) {
			List<String> command = new ArrayList<>();
			command.add("DEL");
			command.addAll(keys.subList(from, Math.min(from + BATCH, keys.size())));
			this.redis.command(command.toArray(new String[0]));
		}
	}

	private long evictedKeys() {
		String info = String.valueOf(this.redis.command("INFO", "stats"));
		Matcher evicted = EVICTED_KEYS.matcher(info);
		assertThat(evicted.find()).as("evicted_keys in %s", info).isTrue();
		return Long.parseLong(evicted.group(1));
	}

	/**
	 * The fillers written, and the error of the first write that failed.
	 *
	 * @param keys the fillers' keys
	 * @param error the error, or {@code null} if none failed
	 */
	private record Filling(List<String> keys, @Nullable String error) {

		int written() {
			return this.keys.size();
		}

	}

}
