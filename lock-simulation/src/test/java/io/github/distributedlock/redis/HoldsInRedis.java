package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.simulation.RedisModel;
import org.jspecify.annotations.Nullable;

/**
 * What Redis must show, after every event, for a hold a client counts on: the live check
 * of {@link LockSimulation} and {@link MultiLockRun}, written once. Redis keeps expiries
 * and the readers' scores in whole milliseconds: 1 ms of slack.
 */
final class HoldsInRedis {

	private static final long MS = LockSimulation.MS;

	private HoldsInRedis() {
	}

	/**
	 * Return what is wrong with a writer's hold {@code hold} of the lock {@code key}: as
	 * {@link #writerViolation}, and its hold's own field in the lock hash, which a
	 * take-over of the owner's older hold must never drop.
	 * @return what Redis shows instead, or {@code null} if nothing is wrong
	 */
	static @Nullable String writerHoldViolation(RedisModel redis, String key, String owner, String hold,
			long endNanos) {
		String wrong = writerViolation(redis, key, owner, endNanos);
		if (wrong == null && redis.inspect("HGET", key, "#" + hold) == null) {
			return "its hold " + hold + " is not in the lock hash";
		}
		return wrong;
	}

	/**
	 * Return what is wrong with a writer's hold of the lock {@code key} that its holder
	 * counts on until {@code endNanos}: its owner must be the lock hash's, with a TTL
	 * that reaches the deadline, and no reader of another owner whose lease Redis still
	 * counts (the scripts' own rule: a score after the server's millisecond).
	 * @return what Redis shows instead, or {@code null} if nothing is wrong
	 */
	static @Nullable String writerViolation(RedisModel redis, String key, String owner, long endNanos) {
		long now = redis.clock().nanos();
		String digest = LockOwners.digest(owner);
		Object held = redis.inspect("HGET", key, "owner");
		if (!digest.equals(held)) {
			return "the lock's owner in Redis is " + held;
		}
		long ttl = (Long) redis.inspect("PTTL", key);
		if (now + ttl * MS + LockSimulation.REDIS_MS_SLACK - endNanos < 0) {
			return "Redis keeps the lock " + ttl + " ms";
		}
		Object readers = redis.inspect("ZRANGEBYSCORE", LockKeys.readers(key), "(" + redis.clock().millis(), "+inf");
		if (readers instanceof List<?> live) {
			for (Object reader : live) {
				if (!digest.equals(reader)) {
					return "Redis counts reader " + reader + " as reading";
				}
			}
		}
		return null;
	}

	/**
	 * Return what is wrong with a reader's hold {@code hold} of the read lock {@code key}
	 * that its holder counts on until {@code endNanos}: its owner must be among the
	 * readers, scored at or after the deadline, with the hold in its owner's list, and no
	 * writer of another owner in the lock hash.
	 * @return what Redis shows instead, or {@code null} if nothing is wrong
	 */
	static @Nullable String readerViolation(RedisModel redis, String key, String owner, String hold, long endNanos) {
		long now = redis.clock().nanos();
		String digest = LockOwners.digest(owner);
		Object score = redis.inspect("ZSCORE", LockKeys.readers(key), digest);
		if (score == null) {
			return "its owner is not among the readers in Redis";
		}
		long endMillis = Long.parseLong(score.toString());
		if (endMillis * MS + LockSimulation.REDIS_MS_SLACK - endNanos < 0) {
			return "Redis keeps its owner reading " + (endMillis * MS - now) / 1e6 + " ms";
		}
		Object holds = redis.inspect("HGET", LockKeys.readHolds(key), digest);
		if (holds == null || !holds.toString().contains("," + hold + ",")) {
			return "its hold is not among its owner's in Redis: " + holds;
		}
		Object held = redis.inspect("HGET", key, "owner");
		if (held != null && !"".equals(held) && !digest.equals(held)) {
			return "the lock's owner in Redis is writer " + held;
		}
		return null;
	}

}
