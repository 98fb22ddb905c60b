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
 * secret of the holder's template plus its thread id. Whoever can read the lock hash can
 * read the owner too, so that secret is only as good as the ACL around it.
 */
class OwnerSecrecyTests {

	private static final String OWNER = "[0-9a-f]{32}:[0-9]+";

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
	void shouldGiveEveryTemplateItsOwnUnguessableOwner() {
		String lockKey = holder.lockKey(LockName.of("owners", "1"));
		List<String> owners = new ArrayList<>();
		try (RedisLockTemplate restarted = RedisLockTemplate.builder(factory).build()) {
			for (RedisLockTemplate template : List.of(holder, stranger, restarted)) {
				try (LockHandle held = template.acquire(LockRequest.of("owners", "1"))) {
					owners.add(String.valueOf(redis.server().command("HGET", lockKey, "owner")));
				}
			}
		}
		assertThat(owners).allMatch((owner) -> owner.matches(OWNER)).doesNotHaveDuplicates();
		assertThat(owners.stream().map((owner) -> owner.substring(owner.indexOf(':'))).distinct())
			.as("the same thread id in each: only the secret tells them apart")
			.hasSize(1);
	}

	@Test
	void shouldRefuseReleaseAndExtendFromAStrangerWhoKnowsKeyAndToken() throws Exception {
		RedisServer server = redis.server();
		LockName name = LockName.of("secret", "1");
		try (LockHandle held = holder
			.acquire(LockRequest.builder("secret").key("1").lease(Duration.ofSeconds(20)).build())) {
			String lockKey = holder.lockKey(name);
			String token = String.valueOf(server.command("HGET", lockKey, "token"));
			String real = String.valueOf(server.command("HGET", lockKey, "owner"));
			String thread = real.substring(real.indexOf(':'));
			// Another template's owner on the same thread: what a second process of the
			// same application has.
			String neighbour;
			try (LockHandle other = stranger.acquire(LockRequest.of("secret", "neighbour"))) {
				neighbour = String.valueOf(server.command("HGET", stranger.lockKey(other.name()), "owner"));
			}
			List<String> guesses = new ArrayList<>(List.of("", " ", "*", "custom:", "custom:job", thread, "0" + thread,
					"0".repeat(32) + thread, "f".repeat(32) + thread, real.toUpperCase(), real + " ", neighbour));
			SecureRandom random = new SecureRandom();
			for (int i = 0; i < 2000; i++) {
				byte[] id = new byte[16];
				random.nextBytes(id);
				guesses.add(HexFormat.of().formatHex(id) + thread);
			}
			String release = script("release.lua");
			String extend = script("extend.lua");
			List<List<String>> attempts = new ArrayList<>();
			for (String guess : guesses) {
				attempts.add(List.of("EVAL", release, "4", lockKey, lockKey + ":released", lockKey + ":requests",
						lockKey + ":readers", guess, token, "1", "0"));
				attempts.add(List.of("EVAL", extend, "1", lockKey, guess, token, "3600000"));
			}
			List<?> replies;
			try (RespConnection raw = server.connect()) {
				replies = raw.pipeline(attempts);
			}
			assertThat(replies).as("every release and extend by a stranger refused as 'someone else holds it'")
				.hasSize(attempts.size())
				.allMatch((reply) -> Long.valueOf(-2).equals(reply));
			assertThat(held.isHeld()).isTrue();
			assertThat(server.command("HGET", lockKey, "owner")).isEqualTo(real);
			assertThat((Long) server.command("PTTL", lockKey)).as("not extended to an hour")
				.isLessThanOrEqualTo(20_000);
			assertThat(stranger.findHeld(name, real)).as("the library API does not hand it out either").isEmpty();
			assertThat(stranger.tryAcquire(LockRequest.builder("secret").key("1").waitTime(Duration.ZERO).build()))
				.isEmpty();
		}
	}

	@Test
	void shouldLetOnlyWhoeverCanReadTheLockHashActAsItsOwner() throws Exception {
		RedisServer server = redis.server();
		LockHandle held = holder
			.acquire(LockRequest.builder("readable").key("1").lease(Duration.ofSeconds(20)).build());
		String lockKey = holder.lockKey(held.name());
		String owner = String.valueOf(server.command("HGET", lockKey, "owner"));
		String token = String.valueOf(server.command("HGET", lockKey, "token"));
		try (RespConnection raw = server.connect()) {
			assertThat(raw.command("EVAL", script("release.lua"), "4", lockKey, lockKey + ":released",
					lockKey + ":requests", lockKey + ":readers", owner, token, "1", "0"))
				.as("read access to lock:* is enough to release: restrict it with ACLs (see AclTests)")
				.isEqualTo(0L);
		}
		assertThat(held.isHeld()).isFalse();
	}

	private static String script(String name) {
		return ProtocolTimings.scriptText(name);
	}

}
