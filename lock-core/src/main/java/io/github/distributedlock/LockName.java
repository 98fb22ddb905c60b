package io.github.distributedlock;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The name of one lock: a scope (what kind of thing is locked) and an optional key (which
 * one), as in {@code server_access:42}.
 *
 * @param scope the scope, never empty
 * @param key the key within the scope, or {@code null} for a lock on the whole scope
 */
public record LockName(String scope, @Nullable String key) {

	/**
	 * The longest scope or key accepted, in characters. Longer names are almost always a
	 * bug (a whole object rendered into a key) and would bloat every Redis command.
	 */
	public static final int MAX_LENGTH = 512;

	private static final int PREVIEW_LENGTH = 100;

	public LockName {
		Objects.requireNonNull(scope, "scope must not be null");
		check("scope", scope, scope, key);
		if (key != null) {
			check("key", key, scope, key);
		}
	}

	/**
	 * Create a lock name.
	 * @param scope the scope
	 * @param key the key, or {@code null}
	 * @return the name
	 * @throws IllegalArgumentException if the scope or key is blank or longer than
	 * {@link #MAX_LENGTH}
	 */
	public static LockName of(String scope, @Nullable String key) {
		return new LockName(scope, key);
	}

	private static void check(String part, String value, String scope, @Nullable String key) {
		if (value.isBlank()) {
			throw new IllegalArgumentException("Lock '" + describe(scope, key) + "' has a blank " + part + "; a lock "
					+ part + " must contain at least one non-whitespace character");
		}
		if (value.length() > MAX_LENGTH) {
			throw new IllegalArgumentException("Lock '" + describe(scope, key) + "' has a " + part + " of "
					+ value.length() + " characters; the limit is " + MAX_LENGTH);
		}
	}

	/**
	 * Describe a name for messages, shortening huge parts so that an error message stays
	 * readable.
	 */
	static String describe(String scope, @Nullable String key) {
		return (key != null) ? preview(scope) + ":" + preview(key) : preview(scope);
	}

	private static String preview(String value) {
		if (value.length() <= PREVIEW_LENGTH) {
			return value;
		}
		return value.substring(0, PREVIEW_LENGTH) + "…(" + value.length() + " chars)";
	}

	/**
	 * Return {@code scope:key}, or the scope alone when there is no key. Long parts are
	 * shortened.
	 */
	@Override
	public String toString() {
		return describe(this.scope, this.key);
	}

}
