package io.github.distributedlock.simulation;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The replies of the model, as RESP2 has them: a {@link Long} (integer), a {@link String}
 * (bulk string), {@code null} (nil), a {@code List} (array), a {@link StatusReply} and an
 * {@link ErrorReply}.
 */
public final class Replies {

	static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

	static final StatusReply OK = new StatusReply("OK");

	private static final Long[] SMALL = new Long[1026];

	static {
		for (int i = 0; i < SMALL.length; i++) {
			SMALL[i] = (long) (i - 2);
		}
	}

	private Replies() {
	}

	/**
	 * Return an integer reply, shared for small values.
	 */
	static Long integer(long value) {
		return (value >= -2 && value < SMALL.length - 2) ? SMALL[(int) value + 2] : Long.valueOf(value);
	}

	/**
	 * Return a reply as text for messages: strings quoted, arrays in brackets.
	 */
	static String describe(@Nullable Object reply) {
		if (reply == null) {
			return "nil";
		}
		if (reply instanceof String text) {
			return '"' + text + '"';
		}
		if (reply instanceof List<?> items) {
			StringBuilder text = new StringBuilder("[");
			for (int i = 0; i < items.size(); i++) {
				text.append((i > 0) ? ", " : "").append(describe(items.get(i)));
			}
			return text.append(']').toString();
		}
		return reply.toString();
	}

	/**
	 * A status reply ({@code +OK}).
	 *
	 * @param text the status
	 */
	public record StatusReply(String text) {

		@Override
		public String toString() {
			return "+" + this.text;
		}

	}

	/**
	 * An error reply ({@code -ERR ...}).
	 *
	 * @param message the error, its code first
	 */
	public record ErrorReply(String message) {

		@Override
		public String toString() {
			return "-" + this.message;
		}

	}

}
