package io.github.distributedlock.redis.core;

import io.github.distributedlock.LockName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockKeys}.
 */
class LockKeysTests {

	private final LockKeys keys = new LockKeys("lock", 0);

	@Test
	void shouldPutScopeAndKeyInOneHashTag() {
		String key = this.keys.lock(LockName.of("server_access", "42"));
		assertThat(key).isEqualTo("lock:{server_access:42}");
		assertThat(LockKeys.releaseChannel(key)).isEqualTo("lock:{server_access:42}:released");
	}

	@Test
	void shouldShareOneFencingCounterPerHashSlot() {
		String key = this.keys.lock(LockName.of("server_access", "42"));
		String fence = LockKeys.fence(key);
		assertThat(fence).startsWith("lock:{").endsWith("}:fence");
		assertThat(HashSlots.slot(fence)).isEqualTo(HashSlots.slot(key));
		assertThat(hashTag(fence)).isEqualTo(HashSlots.tag(HashSlots.slot(key)));
		for (int i = 0; i < 2000; i++) {
			String other = this.keys.lock(LockName.of("server_access", Integer.toString(i)));
			assertThat(HashSlots.slot(LockKeys.fence(other))).isEqualTo(HashSlots.slot(other));
			assertThat(LockKeys.fence(other).equals(fence)).isEqualTo(HashSlots.slot(other) == HashSlots.slot(key));
		}
	}

	@Test
	void shouldHaveOneShortTagPerHashSlot() {
		java.util.Set<String> tags = new java.util.HashSet<>();
		for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
			String tag = HashSlots.tag(slot);
			assertThat(HashSlots.slot("{" + tag + "}")).isEqualTo(slot);
			assertThat(tag).matches("[0-9a-z]{1,4}");
			tags.add(tag);
		}
		assertThat(tags).hasSize(HashSlots.SLOTS);
		// The table must never change: processes of two versions would count in two
		// counters.
		assertThat(HashSlots.tag(0)).isEqualTo(firstTagOf(0));
		assertThat(HashSlots.tag(HashSlots.slot("a"))).isEqualTo("a");
	}

	private static String firstTagOf(int slot) {
		for (int i = 0;; i++) {
			String tag = Integer.toString(i, 36);
			if (HashSlots.slot(tag) == slot) {
				return tag;
			}
		}
	}

	@Test
	void shouldNotLetBracesInUserTextMoveTheSlot() {
		String key = this.keys.lock(LockName.of("a}b", "{c}"));
		assertThat(hashTag(key)).isEqualTo("a%7Db:%7Bc%7D");
		assertThat(key.chars().filter((c) -> c == '{').count()).isOne();
		assertThat(key.chars().filter((c) -> c == '}').count()).isOne();
	}

	@Test
	void shouldKeepScopesAndKeysFromColliding() {
		assertThat(this.keys.lock(LockName.of("a:b", "c"))).isNotEqualTo(this.keys.lock(LockName.of("a", "b:c")));
		assertThat(this.keys.lock(LockName.of("a%3Ab", "c"))).isNotEqualTo(this.keys.lock(LockName.of("a:b", "c")));
		assertThat(this.keys.lock(LockName.of("scope", null))).isEqualTo("lock:{scope}");
	}

	@Test
	void shouldKeepNewlinesAndNonAsciiAsTheyAre() {
		assertThat(this.keys.lock(LockName.of("s", "ü\n*"))).isEqualTo("lock:{s:ü\n*}");
	}

	@Test
	void shouldRejectAPrefixWithBraces() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LockKeys("a{b", 0)).withMessageContaining("a{b");
		assertThatIllegalArgumentException().isThrownBy(() -> new LockKeys("", 0));
	}

	@Test
	void shouldNameKeyspaceChannelsByDatabase() {
		assertThat(new LockKeys("lock", 3).keyspaceChannel("lock:{a}")).isEqualTo("__keyspace@3__:lock:{a}");
	}

	/**
	 * The part of a key that Redis Cluster hashes: between the first '{' and the next
	 * '}'.
	 */
	static String hashTag(String key) {
		int open = key.indexOf('{');
		int close = key.indexOf('}', open + 1);
		return key.substring(open + 1, close);
	}

}
