package io.github.distributedlock.redis;

import java.lang.reflect.Field;
import java.time.Duration;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.HoldLife;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.ReleaseMessage;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.script.LockFunctions;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;

/**
 * The wait path's timing constants, read from the engine, so that the chaos suite picks
 * its pauses and stalls around the values the engine really uses instead of copies of
 * them (docs/design/waiting-and-hand-off.md, "Timing constants"). Constants that depend
 * on a lock's lease or the client's configuration are derived from those.
 * <p>
 * Reads the engine's internal constants, in {@code redis.core} and
 * {@code redis.blocking}.
 */
public final class ProtocolTimings {

	private ProtocolTimings() {
	}

	/**
	 * How long a reservation waits for its waiter's attempt
	 * ({@code HandOffRequest.CLAIM_MILLIS}), for waiters woken by messages.
	 * @return the claim
	 */
	public static Duration claim() {
		return Duration.ofMillis(HandOffRequest.CLAIM_MILLIS);
	}

	/**
	 * The claim a request carries, as {@code release.lua} reads it from the member.
	 * @param request a member of the requests set
	 * @return the claim of that request
	 */
	public static Duration claimOf(String request) {
		return Duration.ofMillis(HandOffRequest.claimMillis(request));
	}

	/**
	 * How often a waiter makes an attempt, and so files its request again, even when it
	 * heard nothing ({@code HandOffRequest.REFILE_NANOS}).
	 * @return the refile interval
	 */
	public static Duration refile() {
		return Duration.ofNanos(HandOffRequest.REFILE_NANOS);
	}

	/**
	 * The longest a single lock's waiter with a filed request sleeps between attempts,
	 * whatever it hears ({@code HandOffRequest.retryNanos}): half the claim, for waiters
	 * woken by messages.
	 * @return the retry interval
	 */
	public static Duration retry() {
		return Duration.ofNanos(HandOffRequest.of(0, UniqueIds.ofProcess()).retryNanos());
	}

	/**
	 * How long a lock's requests live after the last filing
	 * ({@code HandOffRequest.VALIDITY_MILLIS}).
	 * @return the request line lifetime
	 */
	public static Duration requestLapse() {
		return Duration.ofMillis(HandOffRequest.VALIDITY_MILLIS);
	}

	/**
	 * The prefix of a release message that reserved the lock for a request.
	 * @return {@code reserved:}
	 */
	public static String handOffMessagePrefix() {
		return ReleaseMessage.Reserved.PREFIX;
	}

	/**
	 * The id of this JVM in the hand-off requests it files: a request is
	 * {@code <claim>:<process id>.<counter>} ({@code processId} of
	 * {@code UniqueIds.ofProcess()}, private: read reflectively).
	 * @return this JVM's process id in requests
	 */
	public static String processId() {
		return (String) privateField(UniqueIds.ofProcess(), "processId");
	}

	/**
	 * Return the process id part of a request member.
	 * @param request a member of the requests set
	 * @return the id of the JVM that filed it
	 */
	public static String processIdOf(String request) {
		// <claim>:<id> (older engines also filed <claim>:c:<id> and <claim>:q:<id>); an
		// id has no ':'.
		String id = request.substring(request.lastIndexOf(':') + 1);
		return id.substring(0, id.lastIndexOf('.'));
	}

	/**
	 * The key of a lock's requests, a sorted set of {@code <claim>:<id>}.
	 * @param lockKey the lock key
	 * @return the requests key
	 */
	public static String requestsKey(String lockKey) {
		return LockKeys.requests(lockKey);
	}

	/**
	 * The key of a lock's readers, a sorted set of owners scored by lease end.
	 * @param lockKey the lock key
	 * @return the readers key
	 */
	public static String readersKey(String lockKey) {
		return LockKeys.readers(lockKey);
	}

	/**
	 * The key of a semaphore's permits, a sorted set scored by lease end.
	 * @param lockKey the lock key
	 * @return the permits key
	 */
	public static String permitsKey(String lockKey) {
		return LockKeys.permits(lockKey);
	}

	/**
	 * The key of a fair lock's queue of waiters.
	 * @param lockKey the lock key
	 * @return the queue key
	 */
	public static String fairQueueKey(String lockKey) {
		return LockKeys.fairQueue(lockKey);
	}

	/**
	 * The fencing counter a lock's tokens come from: one per hash slot, in the lock's
	 * slot.
	 * @param lockKey the lock key
	 * @return the counter's key
	 */
	public static String fenceKey(String lockKey) {
		return LockKeys.fence(lockKey);
	}

	/**
	 * The text of one of the engine's scripts as it is sent to Redis: the Lua library,
	 * then the script.
	 * @param name the script's file name, such as {@code release.lua}
	 * @return the script's text
	 */
	public static String scriptText(String name) {
		return LockScripts.ALL.stream()
			.filter((script) -> script.name().equals(name))
			.map((script) -> new String(script.text(), java.nio.charset.StandardCharsets.UTF_8))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No script " + name));
	}

	/**
	 * The SHA-1 that the engine sends with {@code EVALSHA} for one of its scripts, so
	 * that a fault can hit that script and no other.
	 * @param name the script's file name, such as {@code extend.lua}
	 * @return the SHA-1, in lower-case hex
	 */
	public static String scriptSha(String name) {
		return LockScripts.ALL.stream()
			.filter((script) -> script.name().equals(name))
			.map((script) -> new String(script.sha1(), java.nio.charset.StandardCharsets.US_ASCII))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No script " + name));
	}

	/**
	 * The name of the function that runs one of the engine's scripts, where the engine
	 * runs them as functions ({@code FCALL}), so that a fault can hit that script and no
	 * other.
	 * @param name the script's file name, such as {@code extend.lua}
	 * @return the function's name
	 */
	public static String functionName(String name) {
		return LockScripts.ALL.stream()
			.filter((script) -> script.name().equals(name))
			.map(LockFunctions::functionName)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No script " + name));
	}

	/**
	 * The engine's function library, for a test to load it with {@code FUNCTION LOAD}
	 * before it drops replies: an {@code FCALL} that Redis does not know yet fails, and
	 * the engine then runs the script instead.
	 * @return the library's text
	 */
	public static String functionLibrary() {
		return new String(LockFunctions.library(), java.nio.charset.StandardCharsets.UTF_8);
	}

	/**
	 * The file names of every script of the engine.
	 * @return the names, such as {@code extend.lua}
	 */
	public static java.util.List<String> scriptNames() {
		return LockScripts.ALL.stream().map(LuaScript::name).toList();
	}

	/**
	 * The text of every script of the engine as it is sent to Redis, for a test to load
	 * them with {@code SCRIPT LOAD} before it drops replies: an {@code EVALSHA} of a
	 * script Redis does not know yet fails, and is then followed by an {@code EVAL}.
	 * @return the scripts' texts
	 */
	public static java.util.List<String> scriptTexts() {
		return LockScripts.ALL.stream()
			.map((script) -> new String(script.text(), java.nio.charset.StandardCharsets.UTF_8))
			.toList();
	}

	/**
	 * The channel a lock's releases are published on.
	 * @param lockKey the lock key
	 * @return the release channel
	 */
	public static String releaseChannel(String lockKey) {
		return LockKeys.releaseChannel(lockKey);
	}

	/**
	 * How often the watchdog renews an auto-renewed hold: a third of its lease
	 * ({@code HoldLife.renewalPeriodNanos}).
	 * @param lease the hold's lease
	 * @return the renewal period
	 */
	public static Duration watchdogPeriod(Duration lease) {
		return Duration.ofNanos(HoldLife.renewalPeriodNanos(lease.toMillis()));
	}

	/**
	 * How long an auto-renewed hold whose renewals stop reaching Redis keeps its lock
	 * after the renewal that was due: the next renewal is sent one period after the last
	 * one, which leaves it two thirds of a lease to arrive.
	 * @param lease the hold's lease
	 * @return two thirds of the lease
	 */
	public static Duration watchdogGrace(Duration lease) {
		return lease.minus(watchdogPeriod(lease));
	}

	/**
	 * How soon the watchdog retries a renewal that failed
	 * ({@code HoldLife.RENEWAL_RETRY_NANOS}).
	 * @return the retry interval
	 */
	public static Duration watchdogRetry() {
		return Duration.ofNanos(HoldLife.RENEWAL_RETRY_NANOS);
	}

	private static Object privateField(Object target, String name) {
		Class<?> type = target.getClass();
		try {
			Field field = type.getDeclaredField(name);
			field.setAccessible(true);
			return field.get(target);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(type.getSimpleName() + "." + name + " is gone: update ProtocolTimings", ex);
		}
	}

}
