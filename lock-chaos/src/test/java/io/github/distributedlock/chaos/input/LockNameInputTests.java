package io.github.distributedlock.chaos.input;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Lock names that are empty, huge, or full of characters that mean something to Redis:
 * each is refused with a message that names it, or locks on its own, in one Cluster slot,
 * never sharing a key with another name.
 */
class LockNameInputTests {

	/**
	 * Names whose text could collide or leave its hash tag if it were not encoded:
	 * braces, colons, the escape character, glob characters, line breaks, a NUL,
	 * non-ASCII, and a scope that looks like scope plus key.
	 */
	static final List<LockName> ODD_NAMES = List.of(LockName.of("a", "b"), LockName.of("a", "b}c"),
			LockName.of("a}b", "c"), LockName.of("a", "{b}"), LockName.of("a", "}"), LockName.of("a", "{"),
			LockName.of("a:b", "c"), LockName.of("a", "b:c"), LockName.of("a:b", null), LockName.of("a", null),
			LockName.of("a", "b%7Dc"), LockName.of("a", "%"), LockName.of("a", "*"), LockName.of("a", "?[b]"),
			LockName.of("a", "b\nc"), LockName.of("a", "b\r\n"), LockName.of("a", "\u0000"), LockName.of("a", "ü"),
			LockName.of("a", "日本"), LockName.of("a", "\uD83D\uDE00"), LockName.of("a", " b "));

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> cluster = RedisTopologyExtension.cluster();

	private static LettuceConnectionFactory factory;

	private static RedisLockTemplate template;

	private static RedisLockTemplate otherProcess;

	@BeforeAll
	static void start() {
		factory = Connections.standalone(redis.server().port());
		template = RedisLockTemplate.builder(factory).build();
		otherProcess = RedisLockTemplate.builder(factory).build();
	}

	@AfterAll
	static void stop() {
		template.close();
		otherProcess.close();
		factory.destroy();
	}

	@Test
	void shouldRejectEmptyAndBlankNamesNamingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.builder("").build())
			.withMessage("Lock '' has a blank scope; a lock scope must contain at least one non-whitespace character");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.builder(" \t").key("1").build())
			.withMessageStartingWith("Lock ' \t:1' has a blank scope");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.builder("s").key("").build())
			.withMessageStartingWith("Lock 's:' has a blank key");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.builder("s").key("\n").build())
			.withMessageStartingWith("Lock 's:\n' has a blank key");
		assertThatNullPointerException().isThrownBy(() -> LockRequest.builder(null))
			.withMessage("scope must not be null");
	}

	@Test
	void shouldLockNamesUpToTheLimitAndRefuseLongerOnesWithAShortenedName() {
		String longest = "k".repeat(LockName.MAX_LENGTH - 1) + "ü";
		try (LockHandle held = template
			.acquire(LockRequest.builder("s".repeat(LockName.MAX_LENGTH)).key(longest).build())) {
			assertThat(held.isHeld()).isTrue();
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("s").key("k".repeat(LockName.MAX_LENGTH + 1)).build())
			.withMessageContaining("has a key of 513 characters; the limit is 512")
			.withMessageContaining("…(513 chars)");
		String huge = "h".repeat(1_000_000);
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.builder(huge).key("1").build())
			.satisfies((ex) -> assertThat(ex.getMessage()).hasSizeLessThan(300).contains("1000000 characters"));
	}

	@Test
	void shouldLockOddNamesIndependentlyUnderKeysOfTheirOwn() {
		List<LockHandle> holds = new ArrayList<>();
		try {
			for (LockName name : ODD_NAMES) {
				holds.add(template.acquire(request(name).build()));
			}
			Set<String> keys = new HashSet<>();
			for (LockName name : ODD_NAMES) {
				String key = template.lockKey(name);
				assertThat(keys.add(key)).as("key of %s is its own", name).isTrue();
				assertThat(hashTag(key)).as("the whole encoded name is the hash tag of %s", name)
					.isEqualTo(key.substring("lock:{".length(), key.length() - 1));
				assertThat(redis.server().command("HGET", key, "owner")).as("%s is in Redis under %s", name, key)
					.isNotNull();
				assertThat(otherProcess.tryAcquire(request(name).waitTime(Duration.ZERO).build()))
					.as("%s excludes another process", name)
					.isEmpty();
			}
			assertThat(keysOf(redis.server(), "lock:{a*")).filteredOn((key) -> !key.endsWith(":fence"))
				.as("a hash per name")
				.hasSize(ODD_NAMES.size());
			Set<String> fences = new HashSet<>();
			for (String key : keys) {
				fences.add(ProtocolTimings.fenceKey(key));
			}
			assertThat(keysOf(redis.server(), "lock:*:fence")).as("one fencing counter per hash slot used")
				.containsAll(fences);
			// Releasing one frees that one only.
			holds.remove(1).close();
			Optional<LockHandle> freed = otherProcess
				.tryAcquire(request(ODD_NAMES.get(1)).waitTime(Duration.ZERO).build());
			assertThat(freed).isPresent();
			freed.get().close();
			for (int i = 0; i < ODD_NAMES.size(); i++) {
				if (i != 1) {
					assertThat(otherProcess.isLocked(ODD_NAMES.get(i).scope(), ODD_NAMES.get(i).key()))
						.as("%s still held", ODD_NAMES.get(i))
						.isTrue();
				}
			}
		}
		finally {
			holds.forEach(LockHandle::close);
		}
		assertThat(keysOf(redis.server(), "lock:{a*")).allSatisfy((key) -> assertThat(key).endsWith(":fence"));
	}

	@Test
	void shouldKeepEveryKeyOfAnOddNameInOneClusterSlot() {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		for (RedisProcess master : cluster.topology().masters()) {
			configuration.clusterNode(master.host(), master.port());
		}
		LettuceConnectionFactory clusterFactory = Connections.start(new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Connections.COMMAND_TIMEOUT).build()));
		try (RedisLockTemplate clustered = RedisLockTemplate.builder(clusterFactory).build()) {
			Set<Long> slots = new HashSet<>();
			for (LockName name : ODD_NAMES) {
				// The scripts touch the lock, its counter, readers and intent keys: Redis
				// Cluster refuses them
				// (CROSSSLOT) unless all are in one slot.
				try (LockHandle held = clustered.acquire(request(name).build())) {
					String key = clustered.lockKey(name);
					RedisServer node = cluster.topology().nodeForKey(key);
					long slot = (Long) node.command("CLUSTER", "KEYSLOT", key);
					assertThat(node.command("CLUSTER", "KEYSLOT", ProtocolTimings.fenceKey(key))).isEqualTo(slot);
					assertThat(node.command("EXISTS", ProtocolTimings.fenceKey(key))).isEqualTo(1L);
					assertThat(node.command("CLUSTER", "KEYSLOT", key + ":released")).isEqualTo(slot);
					assertThat(node.command("HGET", key, "owner")).isNotNull();
					slots.add(slot);
				}
			}
			assertThat(clustered.acquireAll(List.of(request(ODD_NAMES.get(0)).build(),
					request(ODD_NAMES.get(1)).build(), request(ODD_NAMES.get(2)).build()))
				.locks()).hasSize(3).allSatisfy((hold) -> ((LockHandle) hold).close());
			assertThat(slots).as("names spread over slots rather than sharing one").hasSizeGreaterThan(1);
		}
		finally {
			clusterFactory.destroy();
		}
	}

	private static LockRequest.Builder request(LockName name) {
		return LockRequest.builder(name.scope()).key(name.key()).lease(Duration.ofSeconds(30));
	}

	/**
	 * The part of a key that Redis Cluster hashes: between the first '{' and the first
	 * '}' after it.
	 */
	static String hashTag(String key) {
		int open = key.indexOf('{');
		int close = key.indexOf('}', open + 1);
		return key.substring(open + 1, close);
	}

	static List<String> keysOf(RedisServer server, String pattern) {
		return ((List<?>) server.command("KEYS", pattern)).stream().map(String::valueOf).toList();
	}

}
