package io.github.distributedlock.simulation;

/**
 * Which clock a command inside a script reads, as the Redis versions differ. Both freeze
 * the time at which keys count as expired at the script's start; they differ in the time
 * that {@code PEXPIRE}, {@code SET ... PX} and {@code PTTL} count from. The difference
 * shows only when time passes during a script
 * ({@link RedisModel#scriptCommandNanos(long)}); {@code TIME} reads the running clock
 * under both.
 */
public enum ExpiryRule {

	/**
	 * Redis 7.0: a key expires by the time the script started
	 * ({@code scriptTimeSnapshot}), while relative expiry times and {@code PTTL} count
	 * from the running clock ({@code mstime()}). The redis-server the differential test
	 * runs is a 7.0.
	 */
	REDIS_7_0,

	/**
	 * Redis 7.2 and later: every command of a script reads the time the script started
	 * ({@code commandTimeSnapshot}), for expiry, relative expiry times and {@code PTTL},
	 * since 7.2 freezes the time a command, a script or a transaction samples. No 7.2
	 * server holds this rule to account here: the differential test's redis-server is a
	 * 7.0.
	 */
	REDIS_7_2

}
