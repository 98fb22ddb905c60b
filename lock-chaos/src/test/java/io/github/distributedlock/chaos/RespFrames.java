package io.github.distributedlock.chaos;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits one direction of a RESP connection into frames as its bytes arrive in chunks:
 * the commands a client sends, or the replies Redis sends back, counted from the start of
 * the connection. Redis answers the commands of a connection in order, one reply each, so
 * the n-th reply answers the n-th command; RESP3 pushes and attributes are not replies
 * and are not counted. Bytes that are not RESP stop the count for good
 * ({@link #broken()}) rather than fail: the proxy forwards them all the same. Not
 * thread-safe: one reader thread feeds it.
 */
final class RespFrames {

	private static final byte[] EMPTY = new byte[0];

	private final boolean commands;

	private byte[] pending = EMPTY;

	private long count;

	private boolean broken;

	private RespFrames(boolean commands) {
		this.commands = commands;
	}

	/**
	 * Frames of the client's side: each command an array of bulk strings.
	 */
	static RespFrames commands() {
		return new RespFrames(true);
	}

	/**
	 * Frames of Redis's side: replies of any RESP2 or RESP3 type.
	 */
	static RespFrames replies() {
		return new RespFrames(false);
	}

	/**
	 * Return the number of complete frames scanned so far.
	 */
	long count() {
		return this.count;
	}

	boolean broken() {
		return this.broken;
	}

	/**
	 * Scan the next chunk and report each frame that it completes, in order, until the
	 * sink says stop; a frame may have started in an earlier chunk. After a stop the rest
	 * of the chunk is not scanned, so the caller forwards nothing more of this connection
	 * in this direction.
	 * @param chunk the bytes, as read
	 * @param sink told of each complete frame
	 */
	void scan(byte[] chunk, Sink sink) {
		if (this.broken) {
			return;
		}
		byte[] buffer = (this.pending.length == 0) ? chunk : concat(this.pending, chunk);
		int base = this.pending.length;
		int position = 0;
		try {
			while (position < buffer.length) {
				int end = end(buffer, position);
				if (end < 0) {
					break;
				}
				byte type = buffer[position];
				boolean counts = this.commands || (type != '>' && type != '|');
				if (counts) {
					List<byte[]> args = this.commands ? args(buffer, position) : List.of();
					long index = this.count++;
					if (!sink.frame(index, end - base, args)) {
						this.pending = EMPTY;
						return;
					}
				}
				position = end;
			}
		}
		catch (IllegalStateException ex) {
			this.broken = true;
			this.pending = EMPTY;
			return;
		}
		this.pending = Arrays.copyOfRange(buffer, position, buffer.length);
	}

	/**
	 * Return the offset just past the frame that starts at {@code position}, or -1 if the
	 * buffer holds only part of it.
	 */
	private static int end(byte[] buffer, int position) {
		if (position >= buffer.length) {
			return -1;
		}
		byte type = buffer[position];
		int lineEnd = lineEnd(buffer, position + 1);
		if (lineEnd < 0) {
			return -1;
		}
		int next = lineEnd + 2;
		switch (type) {
			case '+', '-', ':', '_', ',', '#', '(':
				return next;
			case '$', '!', '=': {
				long length = number(buffer, position + 1, lineEnd);
				if (length < 0) {
					return next;
				}
				long end = next + length + 2;
				return (end <= buffer.length) ? (int) end : -1;
			}
			case '*', '~', '>', '%', '|': {
				long elements = number(buffer, position + 1, lineEnd);
				if (type == '%' || type == '|') {
					elements *= 2;
				}
				int end = next;
				for (long i = 0; i < elements; i++) {
					end = end(buffer, end);
					if (end < 0) {
						return -1;
					}
				}
				return end;
			}
			default:
				throw new IllegalStateException("Not a RESP frame: type byte " + type);
		}
	}

	/**
	 * Return the index of the CR of the line that starts at {@code from}, or -1 if the
	 * line is not complete yet.
	 */
	private static int lineEnd(byte[] buffer, int from) {
		for (int i = from; i + 1 < buffer.length; i++) {
			if (buffer[i] == '\r') {
				if (buffer[i + 1] != '\n') {
					throw new IllegalStateException("CR without LF");
				}
				return i;
			}
		}
		return -1;
	}

	private static long number(byte[] buffer, int from, int to) {
		String text = new String(buffer, from, to - from, StandardCharsets.US_ASCII);
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException("Not a RESP length: " + text, ex);
		}
	}

	/**
	 * Return the arguments of a complete command frame: an array of bulk strings.
	 */
	private static List<byte[]> args(byte[] buffer, int position) {
		if (buffer[position] != '*') {
			throw new IllegalStateException("Not a command: type byte " + buffer[position]);
		}
		int lineEnd = lineEnd(buffer, position + 1);
		long elements = number(buffer, position + 1, lineEnd);
		List<byte[]> args = new ArrayList<>();
		int next = lineEnd + 2;
		for (long i = 0; i < elements; i++) {
			if (buffer[next] != '$') {
				throw new IllegalStateException("Not a bulk string argument: type byte " + buffer[next]);
			}
			int end = lineEnd(buffer, next + 1);
			int length = (int) number(buffer, next + 1, end);
			args.add(Arrays.copyOfRange(buffer, end + 2, end + 2 + length));
			next = end + 2 + length + 2;
		}
		return args;
	}

	private static byte[] concat(byte[] first, byte[] second) {
		byte[] both = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, both, first.length, second.length);
		return both;
	}

	/**
	 * Told of each complete frame.
	 */
	interface Sink {

		/**
		 * @param index the frame's number on the connection, from 0
		 * @param end the offset in the current chunk just past the frame
		 * @param args a command's arguments, its name first; empty for replies
		 * @return whether to scan on
		 */
		boolean frame(long index, int end, List<byte[]> args);

	}

}
