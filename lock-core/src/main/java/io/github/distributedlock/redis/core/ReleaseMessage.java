package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * A message heard on a lock's wait channels: what a script published on the release
 * channel, or a keyspace event of the lock's keys. Messages are hints, never trusted: an
 * unknown or malformed one is {@link Other}.
 * <p>
 * The forms, and the scripts that publish them:
 * <ul>
 * <li>{@link Released}: the last hold's token, from {@code release.lua}, or from
 * {@code acquire-all.lua} and {@code acquire-read.lua} freeing one reserved for them</li>
 * <li>{@link Reserved}: {@code reserved:<claim ms>:<id>} ({@code release.lua})</li>
 * <li>{@link NextInLine}: {@code next:<owner digest>|<hold>} ({@code release-fair.lua},
 * {@code leave-fair.lua})</li>
 * <li>{@link ReadersLeft}: {@code readers-left} ({@code release-read.lua})</li>
 * <li>{@link PermitReturned}: {@code permit} ({@code release-permit.lua})</li>
 * <li>{@link Forced}: {@code forced} ({@code force-release.lua})</li>
 * <li>{@link KeyGone}: keyspace events {@code del}, {@code expired}, {@code evicted}</li>
 * <li>{@link Other}: {@code intent-dropped}, a writer stopped waiting, so readers its
 * intent held back may try again ({@code drop-intent.lua})</li>
 * </ul>
 */
public sealed interface ReleaseMessage {

	/** Read a message's body. */
	static ReleaseMessage parse(byte[] body) {
		Reserved reserved = Reserved.parse(body);
		if (reserved != null) {
			return reserved;
		}
		if (startsWith(body, NextInLine.PREFIX)) {
			return new NextInLine(text(body, NextInLine.PREFIX.length));
		}
		if (Arrays.equals(body, ReadersLeft.BODY)) {
			return ReadersLeft.INSTANCE;
		}
		if (Arrays.equals(body, PermitReturned.BODY)) {
			return PermitReturned.INSTANCE;
		}
		if (Arrays.equals(body, Forced.BODY)) {
			return Forced.INSTANCE;
		}
		for (byte[] event : KeyGone.EVENTS) {
			if (Arrays.equals(body, event)) {
				return new KeyGone(text(body, 0));
			}
		}
		Long token = number(body, 0, body.length);
		if (token != null) {
			return new Released(token);
		}
		return new Other(text(body, 0));
	}

	/**
	 * Return whether this message names no fair waiter and reserves the lock for no
	 * request: a plain release (or lease end, or forced release).
	 */
	default boolean isPlain() {
		return true;
	}

	/**
	 * Return whether this message, not a reservation, wakes waiters to try again.
	 * @param keyspaceEvents whether the waiters listen to keyspace events, which say when
	 * the lock is free; the release channel's other messages then only inform
	 * @param readers whether the waiters are readers, who ignore the last reader leaving
	 */
	default boolean wakes(boolean keyspaceEvents, boolean readers) {
		return !keyspaceEvents;
	}

	/**
	 * Return whether this message says the lock may have left its holder without a
	 * release: forced, or its key gone. A cohort then passes it no further
	 * (docs/design/cohorting.md, rule 4).
	 */
	default boolean mayEndAHold() {
		return false;
	}

	private static boolean startsWith(byte[] body, byte[] prefix) {
		return body.length >= prefix.length && Arrays.equals(body, 0, prefix.length, prefix, 0, prefix.length);
	}

	/**
	 * Return the number the ASCII digits of the body spell from {@code from} to
	 * {@code to}; {@code null} for none, more than 18 digits (so it always fits a long),
	 * or another byte.
	 */
	private static @Nullable Long number(byte[] body, int from, int to) {
		if (to <= from || to - from > 18) {
			return null;
		}
		long number = 0;
		for (int i = from; i < to; i++) {
			if (body[i] < '0' || body[i] > '9') {
				return null;
			}
			number = number * 10 + (body[i] - '0');
		}
		return number;
	}

	private static String text(byte[] body, int from) {
		return new String(body, from, body.length - from, StandardCharsets.UTF_8);
	}

	private static byte[] ascii(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

	/** The last hold ({@code token}, 0 if unknown) was released: the lock is free. */
	record Released(long token) implements ReleaseMessage {

	}

	/** The lock is reserved for {@code request}, whose waiter's own attempt takes it. */
	record Reserved(String request, long claimMillis) implements ReleaseMessage {

		public static final String PREFIX = "reserved:";

		private static final byte[] PREFIX_BYTES = ascii(PREFIX);

		private static @Nullable Reserved parse(byte[] body) {
			if (body.length <= PREFIX_BYTES.length || !startsWith(body, PREFIX_BYTES)) {
				return null;
			}
			String member = text(body, PREFIX_BYTES.length);
			// Up to the first non-digit, a character is a byte.
			int colon = member.indexOf(':');
			Long claim = (colon > 0) ? number(body, PREFIX_BYTES.length, PREFIX_BYTES.length + colon) : null;
			return (claim != null) ? new Reserved(member, claim) : null;
		}

		@Override
		public boolean isPlain() {
			return false;
		}

		@Override
		public boolean wakes(boolean keyspaceEvents, boolean readers) {
			return false;
		}

	}

	/**
	 * A fair lock's turn passed to {@code waiter} (an acquisition, as
	 * {@code <owner digest>|<hold>}; empty for none).
	 */
	record NextInLine(String waiter) implements ReleaseMessage {

		private static final byte[] PREFIX = ascii("next:");

		@Override
		public boolean isPlain() {
			return false;
		}

		/**
		 * Wakes in every mode: only this message names the next fair waiter (with
		 * keyspace events the {@code del} comes first). The others sleep again.
		 */
		@Override
		public boolean wakes(boolean keyspaceEvents, boolean readers) {
			return true;
		}

	}

	/** The last reader left: only a writer can be waiting for that. */
	record ReadersLeft() implements ReleaseMessage {

		private static final ReadersLeft INSTANCE = new ReadersLeft();

		private static final byte[] BODY = ascii("readers-left");

		@Override
		public boolean wakes(boolean keyspaceEvents, boolean readers) {
			return !keyspaceEvents && !readers;
		}

	}

	/** A permit of a semaphore was given back. */
	record PermitReturned() implements ReleaseMessage {

		private static final PermitReturned INSTANCE = new PermitReturned();

		private static final byte[] BODY = ascii("permit");

	}

	/** An operator deleted the lock, whoever held it. */
	record Forced() implements ReleaseMessage {

		private static final Forced INSTANCE = new Forced();

		private static final byte[] BODY = ascii("forced");

		@Override
		public boolean mayEndAHold() {
			return true;
		}

	}

	/** A keyspace event that the key is gone: deleted, expired or evicted. */
	record KeyGone(String event) implements ReleaseMessage {

		private static final byte[][] EVENTS = { ascii("del"), ascii("expired"), ascii("evicted") };

		@Override
		public boolean wakes(boolean keyspaceEvents, boolean readers) {
			return true;
		}

		@Override
		public boolean mayEndAHold() {
			return true;
		}

	}

	/**
	 * A message that only wakes pub/sub waiters to look for themselves:
	 * {@code intent-dropped}, another keyspace event (such as {@code hset}), or a message
	 * of no known form.
	 */
	record Other(String text) implements ReleaseMessage {

	}

}
