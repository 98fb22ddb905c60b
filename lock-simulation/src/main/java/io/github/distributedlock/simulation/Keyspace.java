package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * The keys of one Redis database: each a string, a hash or a sorted set, with an optional
 * expiry (absolute, in milliseconds). A key whose time has passed stays stored until a
 * command looks it up ({@link CommandContext#lookup}, Redis's lazy expiry) or the model's
 * active expiry finds it ({@link #expired(long)}, when the simulation runs it). Every
 * write marks its key, so that what one command or script changed can be shipped to a
 * replica ({@link #takeWrites()}).
 */
final class Keyspace {

	static final long NO_EXPIRY = -1;

	private final Map<String, Entry> entries;

	private final Set<String> written = new LinkedHashSet<>();

	Keyspace() {
		this(new HashMap<>());
	}

	private Keyspace(Map<String, Entry> entries) {
		this.entries = entries;
	}

	/**
	 * Store a new value under a key, with no expiry, replacing whatever was there.
	 */
	Entry put(String key, Object value) {
		Entry entry = new Entry(value, NO_EXPIRY);
		this.entries.put(key, entry);
		this.written.add(key);
		return entry;
	}

	/**
	 * Delete a key, expired or not.
	 * @return whether it was there
	 */
	boolean delete(String key) {
		this.written.add(key);
		return this.entries.remove(key) != null;
	}

	/**
	 * Mark a key as written: its value or expiry was changed in place.
	 */
	void written(String key) {
		this.written.add(key);
	}

	/**
	 * Return the keys that are not expired at {@code nowMs}, sorted.
	 */
	Set<String> keys(long nowMs) {
		Set<String> keys = new TreeSet<>();
		this.entries.forEach((key, entry) -> {
			if (!entry.isExpired(nowMs)) {
				keys.add(key);
			}
		});
		return keys;
	}

	/**
	 * Return the keys stored but expired at {@code nowMs}, sorted.
	 */
	List<String> expired(long nowMs) {
		List<String> expired = new ArrayList<>();
		this.entries.forEach((key, entry) -> {
			if (entry.isExpired(nowMs)) {
				expired.add(key);
			}
		});
		expired.sort(null);
		return expired;
	}

	/**
	 * Return the entry of a key as stored, expired or not, without deleting it.
	 */
	@Nullable Entry peek(String key) {
		return this.entries.get(key);
	}

	/**
	 * Return the keys written since the last call, each with a copy of its entry or
	 * {@code null} if it was deleted, and forget them.
	 */
	List<Write> takeWrites() {
		if (this.written.isEmpty()) {
			return List.of();
		}
		List<Write> writes = new ArrayList<>(this.written.size());
		for (String key : this.written) {
			Entry entry = this.entries.get(key);
			writes.add(new Write(key, (entry != null) ? entry.copy() : null));
		}
		this.written.clear();
		return writes;
	}

	/**
	 * Forget the keys written since the last call, for a master whose replica needs none
	 * of them.
	 */
	/**
	 * Return whether a key was written since the writes were last taken or forgotten.
	 */
	boolean hasWrites() {
		return !this.written.isEmpty();
	}

	void forgetWrites() {
		this.written.clear();
	}

	/**
	 * Apply writes taken from another keyspace, as a replica applies its master's.
	 */
	void apply(List<Write> writes) {
		for (Write write : writes) {
			if (write.entry() != null) {
				this.entries.put(write.key(), write.entry().copy());
			}
			else {
				this.entries.remove(write.key());
			}
		}
	}

	/**
	 * Return a deep copy, with no writes marked.
	 */
	Keyspace copy() {
		Map<String, Entry> copy = new HashMap<>(this.entries.size() * 2);
		this.entries.forEach((key, entry) -> copy.put(key, entry.copy()));
		return new Keyspace(copy);
	}

	/**
	 * Replace this keyspace's keys with a deep copy of another's, marking every key that
	 * changed as written.
	 */
	void replaceWith(Keyspace other) {
		this.written.addAll(this.entries.keySet());
		this.written.addAll(other.entries.keySet());
		this.entries.clear();
		other.entries.forEach((key, entry) -> this.entries.put(key, entry.copy()));
	}

	/**
	 * A key's value and expiry.
	 */
	static final class Entry {

		/**
		 * A {@link String}, a {@code LinkedHashMap<String, String>} (a hash, in the order
		 * of its fields, as small hashes keep it) or a {@link SortedSetValue}.
		 */
		Object value;

		/**
		 * When the key expires, in milliseconds since the epoch, or {@link #NO_EXPIRY}.
		 */
		long expireAt;

		Entry(Object value, long expireAt) {
			this.value = value;
			this.expireAt = expireAt;
		}

		boolean isExpired(long nowMs) {
			return this.expireAt != NO_EXPIRY && nowMs > this.expireAt;
		}

		String type() {
			if (this.value instanceof String) {
				return "string";
			}
			return (this.value instanceof SortedSetValue) ? "zset" : "hash";
		}

		@SuppressWarnings("unchecked")
		Entry copy() {
			Object copy = this.value;
			if (this.value instanceof SortedSetValue set) {
				copy = set.copy();
			}
			else if (this.value instanceof LinkedHashMap<?, ?> hash) {
				copy = new LinkedHashMap<>((Map<String, String>) hash);
			}
			return new Entry(copy, this.expireAt);
		}

	}

	/**
	 * A key as one command or script left it.
	 *
	 * @param key the key
	 * @param entry a copy of its entry, or {@code null} if it was deleted
	 */
	record Write(String key, @Nullable Entry entry) {
	}

}
