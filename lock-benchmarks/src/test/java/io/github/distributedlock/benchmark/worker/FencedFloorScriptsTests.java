package io.github.distributedlock.benchmark.worker;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks against a real redis-server that the fenced floor's scripts keep what they are
 * measured for: tokens that increase strictly, across a lost counter and ahead of the
 * clock; one hold at a time; and a release that needs the owner itself and the hold's
 * token.
 */
class FencedFloorScriptsTests {

	private static final String LOCK = Library.FENCED_FLOOR.redisKey("test");

	private static final String COUNTER = LockKeys.fence(LOCK);

	private static final String OWNER = "secret-instance:1";

	private static final String OTHER = "secret-instance:2";

	private static final long LEASE_MILLIS = 30_000;

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated();

	private static RedisClient client;

	private static StatefulRedisConnection<String, String> connection;

	private static FencedFloorScripts scripts;

	@BeforeAll
	static void connect() {
		client = RedisClient.create(redis.server().uri());
		connection = client.connect();
		scripts = new FencedFloorScripts(connection.sync());
	}

	@AfterAll
	static void disconnect() {
		connection.close();
		client.shutdown();
	}

	@BeforeEach
	void empty() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldIncreaseTokensStrictlyAcrossALostCounter() {
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			tokens.add(acquireAndRelease());
			if (i % 2 == 0) {
				// Lost (expired, or a failover to a replica that missed it): the clock
				// takes over.
				redis.server().command("DEL", COUNTER);
			}
		}
		for (int i = 1; i < tokens.size(); i++) {
			assertThat(tokens.get(i)).as("token %d after %s", i, tokens.subList(0, i)).isGreaterThan(tokens.get(i - 1));
		}
		// A counter ahead of the clock (tokens handed out faster than it ticks, or a
		// clock that stepped back): the next token is the last one + 1.
		long ahead = tokens.get(tokens.size() - 1) + 1_000_000_000_000L;
		redis.server().command("SET", COUNTER, Long.toString(ahead));
		assertThat(acquireAndRelease()).isEqualTo(ahead + 1);
		assertThat(acquireAndRelease()).isEqualTo(ahead + 2);
		assertThat(redis.server().command("GET", COUNTER)).isEqualTo(Long.toString(ahead + 2));
	}

	@Test
	void shouldRefuseASecondAcquireOfAHeldLock() {
		String token = scripts.acquire(LOCK, COUNTER, OWNER, LEASE_MILLIS);
		assertThat(token).isNotNull();

		assertThat(scripts.acquire(LOCK, COUNTER, OTHER, LEASE_MILLIS)).isNull();
		// No re-entry either.
		assertThat(scripts.acquire(LOCK, COUNTER, OWNER, LEASE_MILLIS)).isNull();
		// The lock keeps the first hold, and the owner's digest, never the owner.
		Object held = redis.server().command("GET", LOCK);
		assertThat(held).isEqualTo(sha1(OWNER) + ":" + token);
		assertThat((String) held).doesNotContain(OWNER);
		assertThat((Long) redis.server().command("PTTL", LOCK)).isPositive().isLessThanOrEqualTo(LEASE_MILLIS);
	}

	@Test
	void shouldIgnoreAReleaseWithTheWrongOwnerOrToken() {
		String token = scripts.acquire(LOCK, COUNTER, OWNER, LEASE_MILLIS);
		assertThat(token).isNotNull();
		String held = sha1(OWNER) + ":" + token;

		assertThat(scripts.release(LOCK, OTHER, token)).isFalse();
		// What Redis keeps, the owner's digest, does not stand in for the owner.
		assertThat(scripts.release(LOCK, sha1(OWNER), token)).isFalse();
		assertThat(scripts.release(LOCK, OWNER, Long.toString(Long.parseLong(token) - 1))).isFalse();
		assertThat(scripts.release(LOCK, OWNER, Long.toString(Long.parseLong(token) + 1))).isFalse();
		assertThat(redis.server().command("GET", LOCK)).isEqualTo(held);

		assertThat(scripts.release(LOCK, OWNER, token)).isTrue();
		assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);
		// A late release of that hold leaves the owner's next hold alone.
		String next = scripts.acquire(LOCK, COUNTER, OWNER, LEASE_MILLIS);
		assertThat(next).isNotNull();
		assertThat(scripts.release(LOCK, OWNER, token)).isFalse();
		assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1(OWNER) + ":" + next);
	}

	private static long acquireAndRelease() {
		String token = scripts.acquire(LOCK, COUNTER, OWNER, LEASE_MILLIS);
		assertThat(token).isNotNull();
		assertThat(scripts.release(LOCK, OWNER, token)).isTrue();
		return Long.parseLong(token);
	}

	private static String sha1(String text) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
