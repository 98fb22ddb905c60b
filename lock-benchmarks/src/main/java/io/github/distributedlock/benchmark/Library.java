package io.github.distributedlock.benchmark;

import java.util.Arrays;
import java.util.List;

/**
 * A lock implementation under comparison, named the same way in worker commands and in
 * the report.
 */
public enum Library {

	/**
	 * The physical floor: one {@code SET key val NX PX} and one {@code DEL} on a plain
	 * Lettuce connection, with a busy retry loop as its only way to wait.
	 */
	FLOOR("floor", "floor (SET NX PX + DEL)", "floor", false),

	/**
	 * The fenced floor: the cheapest lock that keeps this project's two guarantees, a
	 * fencing token on every hold that increases strictly across a lost counter and an
	 * owner that Redis keeps only as its digest, in one script to acquire and one to
	 * release, handing the lock to the oldest waiter by a reservation and a pub/sub hint;
	 * measured uncontended (scenario 1 and {@code instructions.sh}) and on one key
	 * (scenario 2).
	 */
	FENCED_FLOOR("fenced-floor", "fenced floor (token + owner digest, 2 scripts)", "fenced floor", false),

	/**
	 * The engine floor: the fenced floor's commands, on a lock kept as one string, behind
	 * the calls this project's engine makes ({@code FCALL}, and the keys and arguments of
	 * its usual acquire and release); a bound on what any layout of the engine's state
	 * could cost Redis, or reach, while those calls stay. Measured by
	 * {@code instructions.sh} and on one key (scenario 2), on a standalone server only.
	 */
	ENGINE_FLOOR("engine-floor", "engine floor (the engine's calls, the fenced floor's commands)", "engine floor",
			false),

	/**
	 * This project's {@code RedisLockTemplate} as the starter builds it with no property
	 * set: the {@code PUBSUB} wait strategy, and cohorts on (64 holders within 20 ms, the
	 * defaults of {@code distributed-lock.cohorts.*}), which pass the lock between
	 * threads of one process in memory.
	 */
	THIS_PROJECT("ours", "this project (PUBSUB, cohorts on)", "this project", false),

	/**
	 * This project's {@code RedisLockTemplate} with cohorts off
	 * ({@code distributed-lock.cohorts.enabled=false}): strict oldest-first hand-off;
	 * measured on one key (scenario 2) only, since an uncontended lock opens no cohort.
	 */
	THIS_PROJECT_STRICT("ours-strict", "this project (PUBSUB, cohorts off)", "this project (cohorts off)", false),

	/**
	 * This project's {@code ReactiveRedisLockTemplate}, driven from worker threads that
	 * block on its publishers; measured in scenario 2 with 2 processes only (one thread
	 * each, then 8).
	 */
	THIS_PROJECT_REACTIVE("ours-reactive", "this project, reactive (PUBSUB)", "this project (reactive)", false),

	/**
	 * Redisson's {@code RLock}.
	 */
	REDISSON("redisson", "Redisson RLock 4.7.0", "Redisson 4.7.0", true),

	/**
	 * Spring Integration's {@code RedisLockRegistry} in {@code PUB_SUB_LOCK} mode.
	 */
	SPRING_INTEGRATION("spring", "Spring Integration RedisLockRegistry 7.1.0 (PUB_SUB_LOCK)",
			"Spring Integration 7.1.0", true);

	private final String id;

	private final String title;

	private final String shortTitle;

	private final boolean peer;

	Library(String id, String title, String shortTitle, boolean peer) {
		this.id = id;
		this.title = title;
		this.shortTitle = shortTitle;
		this.peer = peer;
	}

	/**
	 * Return the libraries every scenario compares: all but the reactive template, the
	 * template with cohorts off and the two floors that keep this project's rules, which
	 * only scenarios 1 and 2 measure (the engine floor scenario 2 only).
	 * @return the compared libraries, in report order
	 */
	public static List<Library> compared() {
		return Arrays.stream(values())
			.filter((library) -> library != THIS_PROJECT_REACTIVE && library != FENCED_FLOOR
					&& library != THIS_PROJECT_STRICT && library != ENGINE_FLOOR)
			.toList();
	}

	/**
	 * Return the libraries that scenario 1 (uncontended) compares: those of
	 * {@link #compared()} and the fenced floor, after the floor. An uncontended lock
	 * opens no cohort, so the template with cohorts off is left out.
	 * @return the libraries, in report order
	 */
	public static List<Library> uncontended() {
		return Arrays.stream(values())
			.filter((library) -> library != THIS_PROJECT_REACTIVE && library != THIS_PROJECT_STRICT
					&& library != ENGINE_FLOOR)
			.toList();
	}

	/**
	 * Return the libraries that scenario 2 (one key) compares: all of them.
	 * @return the libraries, in report order
	 */
	public static List<Library> contended() {
		return List.of(values());
	}

	/**
	 * Return the short name used in worker commands and key names.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Return the name shown in the report.
	 * @return the title
	 */
	public String title() {
		return this.title;
	}

	/**
	 * Return the name shown where space is short, as in the chart.
	 * @return the short title
	 */
	public String shortTitle() {
		return this.shortTitle;
	}

	/**
	 * Return whether this is another library that this project is compared with (not the
	 * floor, not ours).
	 * @return whether it is a peer
	 */
	public boolean isPeer() {
		return this.peer;
	}

	/**
	 * Return the Redis key that holds a lock, as each worker client names it: this
	 * project prefixes {@code lock:{bench:…}} (the key needs no encoding, having only
	 * letters, digits and dashes), Spring Integration its registry key {@code bench-si:},
	 * the fenced and engine floors make the key their hash tag, and the others use the
	 * key as it is.
	 * @param key the lock key given to the client
	 * @return the Redis key
	 */
	public String redisKey(String key) {
		return switch (this) {
			case THIS_PROJECT, THIS_PROJECT_STRICT, THIS_PROJECT_REACTIVE -> "lock:{bench:" + key + "}";
			case SPRING_INTEGRATION -> "bench-si:" + key;
			case FENCED_FLOOR -> "fenced:{" + key + "}";
			case ENGINE_FLOOR -> "engine:{" + key + "}";
			case FLOOR, REDISSON -> key;
		};
	}

	/**
	 * Return the library with the given id.
	 * @param id the id, as in {@link #id()}
	 * @return the library
	 * @throws IllegalArgumentException if there is none
	 */
	public static Library ofId(String id) {
		for (Library library : values()) {
			if (library.id.equals(id)) {
				return library;
			}
		}
		throw new IllegalArgumentException("Unknown library '" + id + "'");
	}

}
