package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster hash slots: CRC16 (XMODEM) of the key's hash tag, modulo 16384. Used to
 * batch several locks into one script only when they share a slot, and to name one key
 * per slot (see {@link #tag(int)}).
 */
public final class HashSlots {

	public static final int SLOTS = 16384;

	private HashSlots() {
	}

	/**
	 * Return the shortest hash tag of a slot: the first of {@code 0, 1, ..., z, 10, ...}
	 * (base 36) that hashes to it. Every process computes the same table, so a key named
	 * with it (a slot's fencing counter) is one key across processes: changing how the
	 * table is built renames those keys.
	 */
	public static String tag(int slot) {
		return Tags.TABLE[slot];
	}

	public static int slot(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		int start = 0;
		int end = bytes.length;
		int open = indexOf(bytes, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(bytes, (byte) '}', open + 1);
			if (close > open + 1) {
				start = open + 1;
				end = close;
			}
		}
		return crc16(bytes, start, end) & (SLOTS - 1);
	}

	private static int indexOf(byte[] bytes, byte value, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == value) {
				return i;
			}
		}
		return -1;
	}

	private static int crc16(byte[] bytes, int start, int end) {
		int crc = 0;
		for (int i = start; i < end; i++) {
			crc ^= (bytes[i] & 0xFF) << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
		}
		return crc & 0xFFFF;
	}

	/** Built on first use, as it costs some milliseconds. */
	private static final class Tags {

		private static final String[] TABLE = build();

		private static String[] build() {
			String[] tags = new String[SLOTS];
			int found = 0;
			for (int i = 0; found < SLOTS; i++) {
				String tag = Integer.toString(i, 36);
				byte[] bytes = tag.getBytes(StandardCharsets.US_ASCII);
				int slot = crc16(bytes, 0, bytes.length) & (SLOTS - 1);
				if (tags[slot] == null) {
					tags[slot] = tag;
					found++;
				}
			}
			return tags;
		}

	}

}
