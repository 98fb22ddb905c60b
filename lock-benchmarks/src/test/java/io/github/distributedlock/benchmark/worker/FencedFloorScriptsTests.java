package io.github.distributedlock.benchmark.worker;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.FencedFloorScripts.Attempt;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks against a real redis-server that the fenced floor's scripts keep what they are
 * measured for: tokens that increase strictly, across a lost counter and ahead of the
 * clock; one hold at a time; a release that needs the owner itself and the hold's token;
 * and a release that wakes waiters when there were any.
 */
class FencedFloorScriptsTests {

	private static final String LOCK = Library.FENCED_FLOOR.redisKey("test");

	private static final String COUNTER = LockKeys.fence(LOCK);

	private static final String OWNER = "secret-instance:1";

	private static final String OTHER = "secret-instance:2";

	private static final String THIRD = "secret-instance:3";

	private static final String LINE = FencedFloorScripts.line(LOCK);

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
		String token = acquire(OWNER);
		assertThat(token).isNotNull();
		assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1(OWNER) + ":" + token);

		Attempt refused = scripts.acquire(LOCK, COUNTER, OTHER, LEASE_MILLIS, null);
		assertThat(refused.token()).isNull();
		assertThat(refused.leftMillis()).isPositive().isLessThanOrEqualTo(LEASE_MILLIS);
		// No re-entry either.
		assertThat(acquire(OWNER)).isNull();
		// The lock keeps the first hold, marked once as waited for, and the owner's
		// digest, never the owner.
		Object held = redis.server().command("GET", LOCK);
		assertThat(held).isEqualTo(sha1(OWNER) + ":" + token + "*");
		assertThat((String) held).doesNotContain(OWNER);
		assertThat((Long) redis.server().command("PTTL", LOCK)).isPositive().isLessThanOrEqualTo(LEASE_MILLIS);
	}

	@Test
	void shouldReserveAMarkedLockForTheOldestRequestAndTellOnlyItsWaiter() throws InterruptedException {
		BlockingQueue<String> heard = new LinkedBlockingQueue<>();
		try (StatefulRedisPubSubConnection<String, String> messages = client.connectPubSub()) {
			messages.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					heard.add(channel + " " + message);
				}

			});
			messages.sync().subscribe(FencedFloorScripts.channel(LOCK));

			// Nobody tried it: its release tells nobody.
			String unwaited = acquire(OWNER);
			assertThat(unwaited).isNotNull();
			assertThat(scripts.release(LOCK, OWNER, unwaited)).isTrue();
			assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);

			String first = acquire(OWNER);
			assertThat(first).isNotNull();
			assertThat(scripts.acquire(LOCK, COUNTER, OTHER, LEASE_MILLIS, "older").token()).isNull();
			assertThat(scripts.acquire(LOCK, COUNTER, THIRD, LEASE_MILLIS, "newer").token()).isNull();
			// Filed once, keeping its place.
			assertThat(scripts.acquire(LOCK, COUNTER, OTHER, LEASE_MILLIS, "older").token()).isNull();
			assertThat(redis.server().command("ZRANGE", LINE, "0", "-1")).isEqualTo(List.of("older", "newer"));
			assertThat(scripts.release(LOCK, OWNER, first)).isTrue();

			assertThat(redis.server().command("GET", LOCK)).isEqualTo("r:older");
			assertThat((Long) redis.server().command("PTTL", LOCK)).isPositive().isLessThanOrEqualTo(2000);
			assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo(FencedFloorScripts.channel(LOCK) + " reserved:older");
			// A message is a hint: the lock is not the newer request's, nor a newcomer's.
			assertThat(scripts.acquire(LOCK, COUNTER, THIRD, LEASE_MILLIS, "newer").token()).isNull();
			assertThat(acquire(OWNER)).isNull();
			assertThat(redis.server().command("GET", LOCK)).isEqualTo("r:older");

			String taken = scripts.acquire(LOCK, COUNTER, OTHER, LEASE_MILLIS, "older").token();
			assertThat(taken).isNotNull();
			assertThat(Long.parseLong(taken)).isGreaterThan(Long.parseLong(first));
			// Others wait: taken marked, so that its release looks at the line.
			assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1(OTHER) + ":" + taken + "*");
			assertThat(redis.server().command("ZRANGE", LINE, "0", "-1")).isEqualTo(List.of("newer"));
			assertThat(scripts.release(LOCK, OTHER, taken)).isTrue();
			assertThat(redis.server().command("GET", LOCK)).isEqualTo("r:newer");
			assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo(FencedFloorScripts.channel(LOCK) + " reserved:newer");
			assertThat(heard.poll(200, TimeUnit.MILLISECONDS)).isNull();
		}
	}

	@Test
	void shouldLetARequestTakeALockFreedByALapsedReservationAndLeaveTheLine() {
		String first = acquire(OWNER);
		assertThat(first).isNotNull();
		assertThat(scripts.acquire(LOCK, COUNTER, OTHER, LEASE_MILLIS, "waiting").token()).isNull();
		// The holder's lease, or a reservation for another request, ran out.
		redis.server().command("DEL", LOCK);

		String taken = scripts.acquire(LOCK, COUNTER, OTHER, LEASE_MILLIS, "waiting").token();
		assertThat(taken).isNotNull();
		assertThat(redis.server().command("EXISTS", LINE)).isEqualTo(0L);
		// Its release finds nobody in line: the lock goes, and nothing is reserved.
		assertThat(scripts.release(LOCK, OTHER, taken)).isTrue();
		assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);
	}

	@Test
	void shouldIgnoreAReleaseWithTheWrongOwnerOrToken() {
		String token = acquire(OWNER);
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
		String next = acquire(OWNER);
		assertThat(next).isNotNull();
		assertThat(scripts.release(LOCK, OWNER, token)).isFalse();
		assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1(OWNER) + ":" + next);
	}

	private static @Nullable String acquire(String owner) {
		return scripts.acquire(LOCK, COUNTER, owner, LEASE_MILLIS, null).token();
	}

	private static long acquireAndRelease() {
		String token = acquire(OWNER);
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
