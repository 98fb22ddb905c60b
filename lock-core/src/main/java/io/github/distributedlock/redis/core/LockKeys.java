package io.github.distributedlock.redis.core;

import io.github.distributedlock.LockName;

/**
 * Builds the Redis key names of a lock; every suffix is spelled here and nowhere else.
 * All keys of one lock share one hash tag, so they live in one Cluster slot: <pre>
 * &lt;prefix&gt;:{&lt;scope&gt;:&lt;key&gt;}           the lock (a hash: owner, holds, token)
 * &lt;prefix&gt;:{&lt;scope&gt;:&lt;key&gt;}:released  the release channel
 * &lt;prefix&gt;:{&lt;slot tag&gt;}:fence         the fencing counter of every lock in the slot
 * </pre> and, for the kinds and features that use them, {@code :readers},
 * {@code :readholds}, {@code :intent}, {@code :requests}, {@code :queue},
 * {@code :queue:heartbeats}, {@code :permits} (with its own {@code :permits:released}
 * channel) and, for a leader role's lock, {@code :leader}. The fencing counter is one per
 * slot, not per lock, so locks leave at most 16,384 counters behind however many names
 * are locked; its tag is the slot's ({@link HashSlots#tag(int)}), so a script may touch
 * lock and counter on a Cluster. Tokens still increase strictly per lock: the counter
 * only grows, and when it is lost the clock takes over ({@code next_token} in
 * {@code lib.lua}). Scope and key are percent-encoded for {@code %}, <code>{</code>,
 * <code>}</code> and {@code :}, so no user text can end the hash tag early (which would
 * move the lock to another slot) or make {@code a:b} + {@code c} collide with {@code a} +
 * {@code b:c}.
 *
 * @param prefix what every key starts with: not empty, and no brace
 * @param database the database number, which the keyspace channels name
 */
public record LockKeys(String prefix, int database) {

	/**
	 * How long a slot's fencing counter is kept without acquisitions in its slot: far
	 * longer than a token can lead the clock, so when it vanishes the clock takes over.
	 */
	public static final long FENCE_IDLE_MILLIS = java.util.concurrent.TimeUnit.DAYS.toMillis(7);

	public LockKeys {
		if (prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException(
					"Key prefix must be non-empty and contain no '{' or '}', but was '" + prefix + "'");
		}
	}

	public String lock(LockName name) {
		StringBuilder key = new StringBuilder(this.prefix.length() + name.scope().length() + 16);
		key.append(this.prefix).append(":{");
		encode(name.scope(), key);
		if (name.key() != null) {
			key.append(':');
			encode(name.key(), key);
		}
		return key.append('}').toString();
	}

	/** Return the fencing counter of a lock's hash slot. */
	public static String fence(String lockKey) {
		// The prefix has no braces, so the lock's hash tag starts at the first one.
		int tag = lockKey.indexOf('{');
		return lockKey.substring(0, tag + 1) + HashSlots.tag(HashSlots.slot(lockKey)) + "}:fence";
	}

	public static String releaseChannel(String lockKey) {
		return lockKey + ":released";
	}

	/** Return the key of the readers, a sorted set of owners scored by lease end. */
	public static String readers(String lockKey) {
		return lockKey + ":readers";
	}

	public static String readHolds(String lockKey) {
		return lockKey + ":readholds";
	}

	/** Return the key of a waiting writer's intent, which holds new readers back. */
	public static String writerIntent(String lockKey) {
		return lockKey + ":intent";
	}

	public static String requests(String lockKey) {
		return lockKey + ":requests";
	}

	public static String fairQueue(String lockKey) {
		return lockKey + ":queue";
	}

	public static String fairQueueHeartbeats(String lockKey) {
		return lockKey + ":queue:heartbeats";
	}

	/** Return the key of a semaphore's permits, a sorted set scored by lease end. */
	public static String permits(String lockKey) {
		return lockKey + ":permits";
	}

	/**
	 * Return the key where a leader role's leader publishes its instance and term, beside
	 * the role's lock.
	 */
	public static String leader(String lockKey) {
		return lockKey + ":leader";
	}

	String keyspaceChannel(String lockKey) {
		return "__keyspace@" + this.database + "__:" + lockKey;
	}

	/**
	 * Return the channel that keeps the listener container subscribed while no lock is
	 * awaited, so waiting on a cold lock never pays for a new connection.
	 */
	public String keepAliveChannel() {
		return this.prefix + ":engine";
	}

	static void encode(String text, StringBuilder out) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '%' -> out.append("%25");
				case ':' -> out.append("%3A");
				case '{' -> out.append("%7B");
				case '}' -> out.append("%7D");
				default -> out.append(c);
			}
		}
	}

}
