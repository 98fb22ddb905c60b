package io.github.distributedlock.test;

import java.nio.charset.StandardCharsets;

/**
 * The Redis Cluster hash slot of a key: CRC16 (XMODEM) of the key, or of its hash tag,
 * modulo 16384.
 */
final class ClusterHashSlot {

	static final int SLOTS = 16384;

	private static final int POLYNOMIAL = 0x1021;

	private ClusterHashSlot() {
	}

	/**
	 * Return the slot of a key encoded as UTF-8, as the commands of
	 * {@link RedisServer#command(String...)} send it.
	 */
	static int of(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		int open = indexOf(bytes, '{', 0);
		if (open >= 0) {
			int close = indexOf(bytes, '}', open + 1);
			// Only a non-empty tag counts: "{}" and "a{" hash the whole key, as Redis
			// does.
			if (close > open + 1) {
				return crc16(bytes, open + 1, close) & (SLOTS - 1);
			}
		}
		return crc16(bytes, 0, bytes.length) & (SLOTS - 1);
	}

	static int crc16(byte[] bytes, int from, int to) {
		int crc = 0;
		for (int i = from; i < to; i++) {
			crc ^= (bytes[i] & 0xFF) << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ POLYNOMIAL : crc << 1;
			}
			crc &= 0xFFFF;
		}
		return crc;
	}

	private static int indexOf(byte[] bytes, char wanted, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

}
