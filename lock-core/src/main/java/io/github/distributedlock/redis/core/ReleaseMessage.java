package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * A message heard on a lock's wait channels: what a script published on the release
 * channel when the lock (or a read lock, or a permit) changed hands, or a keyspace event
 * of the lock's keys. Messages are hints, never trusted: one that is of no known form, or
 * malformed, is {@link Other}, which wakes pub/sub waiters to look for themselves.
 * <p>
 * The forms, and the scripts that publish them:
 * <ul>
 * <li>{@link Released}: the last hold's fencing token ({@code release.lua};
 * {@code acquire-all.lua} and {@code acquire-read.lua} when they free a lock reserved for
 * their request)</li>
 * <li>{@link Reserved}: {@code reserved:<claim ms>:<id>}, the lock is reserved for that
 * request ({@code release.lua})</li>
 * <li>{@link NextInLine}: {@code next:<owner>}, a fair lock's next waiter, possibly none
 * ({@code release-fair.lua}, {@code leave-fair.lua})</li>
 * <li>{@link ReadersLeft}: {@code readers-left}, the last reader left
 * ({@code release-read.lua})</li>
 * <li>{@link PermitReturned}: {@code permit} ({@code release-permit.lua})</li>
 * <li>{@link Forced}: {@code forced}, an operator deleted the lock
 * ({@code force-release.lua})</li>
 * <li>{@link KeyGone}: the keyspace events {@code del}, {@code expired} and
 * {@code evicted}</li>
 * <li>{@link Other}: {@code intent-dropped}, a writer that readers held back stopped
 * waiting, so the readers its intent held back may try again
 * ({@code drop-intent.lua})</li>
 * </ul>
 */
public sealed interface ReleaseMessage {

	/**
	 * Read a message's body.
	 */
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
	 * request: a plain release (or lease end, or forced release) for the waiters to act
	 * on.
	 */
	default boolean isPlain() {
		return true;
	}

	/**
	 * Return whether this message, not a reservation, wakes waiters to try again.
	 * @param keyspaceEvents whether the waiters listen to keyspace events, which say when
	 * the lock is free; the release channel's other messages then only inform
	 * @param readers whether the waiters are readers, who ignore that the last reader
	 * left
	 */
	default boolean wakes(boolean keyspaceEvents, boolean readers) {
		return !keyspaceEvents;
	}

	private static boolean startsWith(byte[] body, byte[] prefix) {
		return body.length >= prefix.length && Arrays.equals(body, 0, prefix.length, prefix, 0, prefix.length);
	}

	/**
	 * Return the number that the ASCII digits of the body spell from {@code from} to
	 * {@code to}, or {@code null} if there are none, more than 18, or another byte.
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

	/**
	 * The last hold was released and the lock is free.
	 *
	 * @param token the fencing token of the hold (0 when unknown)
	 */
	record Released(long token) implements ReleaseMessage {

	}

	/**
	 * The lock is reserved for a waiter's request, whose own attempt takes it.
	 *
	 * @param request the request's member ({@code <claim ms>:<id>})
	 * @param claimMillis how long the reservation waits for that waiter
	 */
	record Reserved(String request, long claimMillis) implements ReleaseMessage {

		/** The prefix of the message. */
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
	 * A fair lock was released (or its head waiter gave up) and it is this waiter's turn.
	 *
	 * @param waiter the owner of the waiter at the head of the queue, empty if none
	 */
	record NextInLine(String waiter) implements ReleaseMessage {

		private static final byte[] PREFIX = ascii("next:");

		@Override
		public boolean isPlain() {
			return false;
		}

		/**
		 * Wakes in every mode: only this message names the next fair waiter, and with
		 * keyspace events the lock's {@code del} comes before it, when the waiter is not
		 * named yet. The others go back to sleep.
		 */
		@Override
		public boolean wakes(boolean keyspaceEvents, boolean readers) {
			return true;
		}

	}

	/**
	 * The last reader left: only a writer can be waiting for that.
	 */
	record ReadersLeft() implements ReleaseMessage {

		private static final ReadersLeft INSTANCE = new ReadersLeft();

		private static final byte[] BODY = ascii("readers-left");

		@Override
		public boolean wakes(boolean keyspaceEvents, boolean readers) {
			return !keyspaceEvents && !readers;
		}

	}

	/**
	 * A permit of a semaphore was given back.
	 */
	record PermitReturned() implements ReleaseMessage {

		private static final PermitReturned INSTANCE = new PermitReturned();

		private static final byte[] BODY = ascii("permit");

	}

	/**
	 * An operator deleted the lock, whoever held it.
	 */
	record Forced() implements ReleaseMessage {

		private static final Forced INSTANCE = new Forced();

		private static final byte[] BODY = ascii("forced");

	}

	/**
	 * A keyspace event that the key is gone: deleted, expired or evicted.
	 *
	 * @param event the event's name
	 */
	record KeyGone(String event) implements ReleaseMessage {

		private static final byte[][] EVENTS = { ascii("del"), ascii("expired"), ascii("evicted") };

		@Override
		public boolean wakes(boolean keyspaceEvents, boolean readers) {
			return true;
		}

	}

	/**
	 * A message that only wakes pub/sub waiters to look for themselves:
	 * {@code intent-dropped}, another keyspace event (such as {@code hset}), or a message
	 * of no known form.
	 *
	 * @param text the body
	 */
	record Other(String text) implements ReleaseMessage {

	}

}
