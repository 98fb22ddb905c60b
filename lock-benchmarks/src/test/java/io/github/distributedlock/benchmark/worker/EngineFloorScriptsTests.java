package io.github.distributedlock.benchmark.worker;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.benchmark.Library;
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
 * Checks against a real redis-server that the engine floor's library keeps the rules it
 * is measured for: one hold at a time, kept as the owner's digest, the token and the hold
 * id; a release that needs the owner itself, the token and the hold; a marked lock
 * reserved for the oldest request, whose waiter alone is told and which only that
 * request's attempt takes; a try that marks and files nothing.
 */
class EngineFloorScriptsTests {

	private static final String KEY = "test";

	private static final String LOCK = Library.ENGINE_FLOOR.redisKey(KEY);

	private static final String LINE = EngineFloorScripts.requests(LOCK);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated()
		.since(7, "The engine floor's library of functions (FUNCTION LOAD, FCALL)");

	private static RedisClient client;

	private static StatefulRedisConnection<String, String> connection;

	private static EngineFloorScripts scripts;

	@BeforeAll
	static void connect() {
		client = RedisClient.create("redis://" + redis.server().host() + ":" + redis.server().port());
		connection = client.connect();
		scripts = new EngineFloorScripts(connection.sync());
	}

	@AfterAll
	static void disconnect() {
		// Null where connecting failed.
		if (connection != null) {
			connection.close();
		}
		if (client != null) {
			client.shutdown();
		}
	}

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldKeepALoneHoldAsOneStringAndEndItOnlyByItsOwnRelease() {
		String token = acquire("owner", "h.1", null);
		assertThat(token).isNotNull();
		assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1("owner") + "|" + token + "|h.1");
		assertThat((Long) redis.server().command("PTTL", LOCK)).isBetween(1L, LEASE.toMillis());
		// Another owner is refused, and a try marks nothing.
		assertThat(scripts.acquire(KEY, "other", "h.2", LEASE, Duration.ZERO, null).token()).isNull();
		// What Redis keeps, the digest, does not stand in for the owner; nor does another
		// hold or token.
		scripts.release(KEY, sha1("owner"), "h.1", token);
		scripts.release(KEY, "owner", "h.9", token);
		scripts.release(KEY, "owner", "h.1", Long.toString(Long.parseLong(token) + 1));
		assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1("owner") + "|" + token + "|h.1");
		scripts.release(KEY, "owner", "h.1", token);
		assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);
	}

	@Test
	void shouldReserveAMarkedLockForTheOldestRequestAndLetOnlyItTakeIt() throws InterruptedException {
		BlockingQueue<String> heard = new LinkedBlockingQueue<>();
		try (StatefulRedisPubSubConnection<String, String> messages = client.connectPubSub()) {
			messages.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					heard.add(message);
				}

			});
			messages.sync().subscribe(scripts.channel(KEY));
			String first = acquire("owner", "h.1", null);
			assertThat(first).isNotNull();
			assertThat(acquire("other", "h.2", "2000:older")).isNull();
			// Requests are filed by the server's millisecond, as the engine's are.
			Thread.sleep(2);
			assertThat(acquire("third", "h.3", "2000:newer")).isNull();
			// Filed once, keeping its place; the lock marked once.
			assertThat(acquire("other", "h.2", "2000:older")).isNull();
			assertThat(redis.server().command("ZRANGE", LINE, "0", "-1"))
				.isEqualTo(List.of("2000:older", "2000:newer"));
			assertThat((Long) redis.server().command("PTTL", LINE)).isBetween(1L, 30_000L);
			assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1("owner") + "|" + first + "|h.1*");

			scripts.release(KEY, "owner", "h.1", first);
			assertThat(redis.server().command("GET", LOCK)).isEqualTo("r:2000:older|" + first);
			assertThat((Long) redis.server().command("PTTL", LOCK)).isBetween(1L, 2000L);
			assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("reserved:2000:older");
			// A message is a hint: the lock is not the newer request's, nor a newcomer's.
			assertThat(acquire("third", "h.3", "2000:newer")).isNull();
			assertThat(acquire("owner", "h.4", null)).isNull();
			assertThat(redis.server().command("GET", LOCK)).isEqualTo("r:2000:older|" + first);

			String taken = acquire("other", "h.2", "2000:older");
			assertThat(taken).isNotNull();
			assertThat(Long.parseLong(taken)).isGreaterThan(Long.parseLong(first));
			assertThat(redis.server().command("GET", LOCK)).isEqualTo(sha1("other") + "|" + taken + "|h.2*");
			assertThat(redis.server().command("ZRANGE", LINE, "0", "-1")).isEqualTo(List.of("2000:newer"));
			scripts.release(KEY, "other", "h.2", taken);
			assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("reserved:2000:newer");
			String last = acquire("third", "h.3", "2000:newer");
			assertThat(last).isNotNull();
			scripts.release(KEY, "third", "h.3", last);
			// Nobody in line, but a waiter took it: the lock goes, and the waiters are
			// told its token.
			assertThat(redis.server().command("EXISTS", LOCK, LINE)).isEqualTo(0L);
			assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo(last);
			String unwaited = acquire("owner", "h.5", null);
			scripts.release(KEY, "owner", "h.5", unwaited);
			// Nobody tried it: its release tells nobody.
			assertThat(heard.poll(200, TimeUnit.MILLISECONDS)).isNull();
		}
	}

	@Test
	void shouldLetARequestTakeALockFreedByALapsedReservationAndLeaveTheLine() {
		String first = acquire("owner", "h.1", null);
		assertThat(acquire("other", "h.2", "2000:waiting")).isNull();
		// The holder's lease, or a reservation for another request, ran out.
		redis.server().command("DEL", LOCK);
		String taken = acquire("other", "h.2", "2000:waiting");
		assertThat(taken).isNotNull();
		assertThat(Long.parseLong(taken)).isGreaterThan(Long.parseLong(first));
		assertThat(redis.server().command("EXISTS", LINE)).isEqualTo(0L);
	}

	private static @Nullable String acquire(String owner, String hold, @Nullable String request) {
		return scripts.acquire(KEY, owner, hold, LEASE, WAIT, request).token();
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
