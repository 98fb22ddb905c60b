package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * A key as a dump sees it: its type, its expiry (absolute ms, -1 for none) and its
 * contents in the order Redis keeps them (a string's value; a hash's fields and values; a
 * sorted set's members and scores, as {@code %.17g}; a list's elements, head first).
 *
 * @param type {@code string}, {@code hash}, {@code zset} or {@code list}
 * @param expireAt when it expires, or -1
 * @param contents what it holds, in order
 * @param ordered whether the order of a hash's fields counts (a listpack keeps the order
 * fields were added in, a hash table has none to compare)
 */
record KeyState(String type, long expireAt, List<String> contents, boolean ordered) {

	/**
	 * Return a model key's state, or {@code null} if it is absent or expired at
	 * {@code nowMs}.
	 */
	@SuppressWarnings("unchecked")
	static @Nullable KeyState of(Keyspace.@Nullable Entry entry, long nowMs) {
		if (entry == null || entry.isExpired(nowMs)) {
			return null;
		}
		List<String> contents = new ArrayList<>();
		if (entry.value instanceof String text) {
			contents.add(text);
		}
		else if (entry.value instanceof SortedSetValue set) {
			for (int i = 0; i < set.size(); i++) {
				contents.add(set.at(i).name());
				contents.add(RedisNumbers.format(set.at(i).score()));
			}
		}
		else if (entry.value instanceof java.util.ArrayDeque<?> list) {
			list.forEach((element) -> contents.add((String) element));
		}
		else {
			((LinkedHashMap<String, String>) entry.value).forEach((field, value) -> {
				contents.add(field);
				contents.add(value);
			});
		}
		return new KeyState(entry.type(), entry.expireAt, contents, true);
	}

	/**
	 * Return whether two keys hold the same, in order where the real one keeps one.
	 */
	boolean sameContents(KeyState real) {
		if (!this.type.equals(real.type())) {
			return false;
		}
		if (real.ordered() || !this.type.equals("hash")) {
			return this.contents.equals(real.contents());
		}
		return pairs(this.contents).equals(pairs(real.contents()));
	}

	private static Map<String, String> pairs(List<String> contents) {
		Map<String, String> pairs = new TreeMap<>();
		for (int i = 0; i + 1 < contents.size(); i += 2) {
			pairs.put(contents.get(i), contents.get(i + 1));
		}
		return pairs;
	}

	@Override
	public String toString() {
		return this.type + ((this.expireAt >= 0) ? " expiring at " + this.expireAt : "") + " " + this.contents;
	}

}
