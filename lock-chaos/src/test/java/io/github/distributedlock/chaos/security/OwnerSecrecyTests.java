package io.github.distributedlock.chaos.security;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stranger who knows a lock's name, its Redis keys and even its fencing token cannot
 * release or extend it: the release and extend scripts also check the owner, a 128-bit
 * secret of the holder's template plus its thread id. Redis keeps only a digest of the
 * owner, and messages carry nothing more, so reading the lock's keys or listening to its
 * channel does not reveal it either.
 */
class OwnerSecrecyTests {

	private static final String OWNER = "[0-9a-f]{32}:[0-9]+";

	private static final String DIGEST = "[0-9a-f]{40}";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static LettuceConnectionFactory factory;

	private static RedisLockTemplate holder;

	private static RedisLockTemplate stranger;

	@BeforeAll
	static void start() {
		factory = Connections.standalone(redis.server().port());
		holder = RedisLockTemplate.builder(factory).build();
		stranger = RedisLockTemplate.builder(factory).build();
	}

	@AfterAll
	static void stop() {
		holder.close();
		stranger.close();
		factory.destroy();
	}

	@Test
	void shouldKeepADifferentDigestForEveryTemplatesOwner() {
		String lockKey = holder.lockKey(LockName.of("owners", "1"));
		List<String> owners = new ArrayList<>();
		try (RedisLockTemplate restarted = RedisLockTemplate.builder(factory).build()) {
			for (RedisLockTemplate template : List.of(holder, stranger, restarted)) {
				try (LockHandle held = template.acquire(LockRequest.of("owners", "1"))) {
					owners.add(String.valueOf(redis.server().command("HGET", lockKey, "owner")));
				}
			}
		}
		assertThat(owners).as("digests, the same thread in each template")
			.allMatch((owner) -> owner.matches(DIGEST))
			.doesNotHaveDuplicates();
	}

	@Test
	void shouldRefuseReleaseAndExtendFromAStrangerWhoReadsEveryField() throws Exception {
		RedisServer server = redis.server();
		LockName name = LockName.of("secret", "1");
		try (LockHandle held = holder
			.acquire(LockRequest.builder("secret").key("1").lease(Duration.ofSeconds(20)).build())) {
			String lockKey = holder.lockKey(name);
			String token = String.valueOf(server.command("HGET", lockKey, "token"));
			String digest = String.valueOf(server.command("HGET", lockKey, "owner"));
			String hold = holdId(server, lockKey);
			// Another template's owner digest: what a second process of the same
			// application has.
			String neighbour;
			try (LockHandle other = stranger.acquire(LockRequest.of("secret", "neighbour"))) {
				neighbour = String.valueOf(server.command("HGET", stranger.lockKey(other.name()), "owner"));
			}
			List<String> guesses = new ArrayList<>(List.of("", " ", "*", "custom:", "custom:job", digest,
					"custom:" + digest, digest.toUpperCase(), digest + " ", neighbour));
			SecureRandom random = new SecureRandom();
			for (int i = 0; i < 2000; i++) {
				byte[] id = new byte[16];
				random.nextBytes(id);
				guesses.add(HexFormat.of().formatHex(id) + ":1");
			}
			String release = script("release.lua");
			String extend = script("extend.lua");
			List<List<String>> attempts = new ArrayList<>();
			for (String guess : guesses) {
				attempts.add(List.of("EVAL", release, "4", lockKey, lockKey + ":released", lockKey + ":requests",
						lockKey + ":readers", guess, token, hold, "1", "0"));
				attempts.add(List.of("EVAL", extend, "1", lockKey, guess, token, hold, "3600000"));
			}
			List<?> replies;
			try (RespConnection raw = server.connect()) {
				replies = raw.pipeline(attempts);
			}
			assertThat(replies).as("every release and extend by a stranger refused as 'someone else holds it'")
				.hasSize(attempts.size())
				.allMatch((reply) -> Long.valueOf(-2).equals(reply));
			assertThat(held.isHeld()).isTrue();
			assertThat(server.command("HGET", lockKey, "owner")).isEqualTo(digest);
			assertThat((Long) server.command("PTTL", lockKey)).as("not extended to an hour")
				.isLessThanOrEqualTo(20_000);
			assertThat(stranger.findHeld(name, digest)).as("the library API does not hand it out either").isEmpty();
			assertThat(stranger.tryAcquire(LockRequest.builder("secret").key("1").waitTime(Duration.ZERO).build()))
				.isEmpty();
		}
	}

	@Test
	void shouldNotLetWhoeverReadsTheLockHashActAsItsOwner() throws Exception {
		RedisServer server = redis.server();
		try (LockHandle held = holder
			.acquire(LockRequest.builder("readable").key("1").lease(Duration.ofSeconds(20)).build())) {
			String lockKey = holder.lockKey(held.name());
			String owner = String.valueOf(server.command("HGET", lockKey, "owner"));
			String token = String.valueOf(server.command("HGET", lockKey, "token"));
			String hold = holdId(server, lockKey);
			assertThat(owner).as("no owner id in the hash").doesNotMatch(OWNER).matches(DIGEST);
			try (RespConnection raw = server.connect()) {
				assertThat(raw.command("EVAL", script("release.lua"), "4", lockKey, lockKey + ":released",
						lockKey + ":requests", lockKey + ":readers", owner, token, hold, "1", "0"))
					.as("what the lock hash shows is not enough to release it")
					.isEqualTo(-2L);
			}
			assertThat(held.isHeld()).isTrue();
		}
	}

	@Test
	void shouldPublishNoOwnerOnAnyChannel() throws Exception {
		RedisServer server = redis.server();
		LockRequest fair = LockRequest.builder("fair").key("1").fair(true).waitTime(Duration.ofSeconds(10)).build();
		List<String> messages = new ArrayList<>();
		try (RespConnection listener = server.connect()) {
			listener.send("PSUBSCRIBE", "*");
			listener.awaitNext();
			LockHandle held = holder.acquire(fair);
			Thread waiter = new Thread(() -> stranger.acquire(fair).close());
			waiter.start();
			// The waiter queues, then the release names the next waiter on the channel.
			Thread.sleep(300);
			held.close();
			waiter.join(10_000);
			assertThat(waiter.isAlive()).as("the fair waiter got the lock").isFalse();
			try (LockHandle plain = holder.acquire(LockRequest.of("plain", "1"))) {
				// A waiter, not a try: only a waiter's attempt marks the lock, so
				// that its release publishes.
				assertThat(stranger
					.tryAcquire(LockRequest.builder("plain").key("1").waitTime(Duration.ofMillis(200)).build()))
					.isEmpty();
			}
			listener.send("PUNSUBSCRIBE");
			for (Object message = listener.awaitNext(); message instanceof List<?> parts
					&& !"punsubscribe".equals(String.valueOf(parts.get(0))); message = listener.awaitNext()) {
				messages.add(String.valueOf(parts.get(parts.size() - 1)));
			}
		}
		assertThat(messages).as("the fair release named the next waiter").anyMatch((m) -> m.startsWith("next:"));
		// Its token, or a reservation for a request whose withdrawal came after it.
		assertThat(messages).as("the plain release told the waiter")
			.anyMatch((m) -> m.matches("\\d+") || m.startsWith("reserved:"));
		assertThat(messages).as("no owner id in any message").noneMatch((m) -> m.matches(".*" + OWNER + ".*"));
		assertThat(messages.stream().filter((m) -> m.startsWith("next:")))
			.allMatch((m) -> m.matches("next:(" + DIGEST + "\\|[^|]+)?"));
	}

	private static String holdId(RedisServer server, String lockKey) {
		List<?> fields = (List<?>) server.command("HKEYS", lockKey);
		return fields.stream()
			.map(String::valueOf)
			.filter((field) -> field.startsWith("#"))
			.findFirst()
			.orElseThrow()
			.substring(1);
	}

	private static String script(String name) {
		return ProtocolTimings.scriptText(name);
	}

}
