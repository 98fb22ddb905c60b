package io.github.distributedlock.benchmark;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.test.RedisServer;

/**
 * What redis-server had used up to one moment: CPU of its main thread, memory holding
 * data, and keys. Differences of two readings give what a phase cost.
 *
 * @param cpuSeconds CPU time of the main thread, user and system
 * ({@code used_cpu_user_main_thread} + {@code used_cpu_sys_main_thread} of
 * {@code INFO cpu}); the whole process's on a server that lacks those fields
 * @param dataBytes {@code used_memory} without what client connections hold (the sum of
 * {@code tot-mem} in {@code CLIENT LIST}) and without the script cache
 * ({@code used_memory_scripts}): the keys, their dictionaries and pub/sub state
 * @param keys keys in the database ({@code DBSIZE})
 */
record RedisUsage(double cpuSeconds, long dataBytes, long keys) {

	/**
	 * The fewest lock names over which data memory left is divided: it moves by some
	 * hundred kilobytes with allocator and dictionary noise, which would swamp the figure
	 * of a few names.
	 */
	static final long MIN_NAMES_FOR_BYTES = 100;

	static RedisUsage take(RedisServer server) {
		Map<String, String> cpu = info(server, "cpu");
		Map<String, String> memory = info(server, "memory");
		String user = cpu.getOrDefault("used_cpu_user_main_thread", cpu.getOrDefault("used_cpu_user", "0"));
		String sys = cpu.getOrDefault("used_cpu_sys_main_thread", cpu.getOrDefault("used_cpu_sys", "0"));
		// Not INFO's mem_clients_normal: Redis refreshes it for each client only about
		// once a second, so a
		// connection opened just before reads as none.
		long data = number(memory, "used_memory") - clientMemory(server) - number(memory, "used_memory_scripts");
		Object keys = server.command("DBSIZE");
		return new RedisUsage(Double.parseDouble(user) + Double.parseDouble(sys), data,
				(keys instanceof Long count) ? count : 0);
	}

	/**
	 * Add up the readings of several servers, such as the masters of a cluster.
	 */
	static RedisUsage total(List<RedisUsage> readings) {
		return new RedisUsage(readings.stream().mapToDouble(RedisUsage::cpuSeconds).sum(),
				readings.stream().mapToLong(RedisUsage::dataBytes).sum(),
				readings.stream().mapToLong(RedisUsage::keys).sum());
	}

	/**
	 * Return what was used since an earlier reading.
	 */
	RedisUsage minus(RedisUsage earlier) {
		return new RedisUsage(this.cpuSeconds - earlier.cpuSeconds, this.dataBytes - earlier.dataBytes,
				this.keys - earlier.keys);
	}

	/**
	 * Return the main thread's CPU time in microseconds per operation.
	 */
	double cpuMicrosPer(long operations) {
		return this.cpuSeconds * 1e6 / Math.max(1, operations);
	}

	/**
	 * Return the keys of this difference per lock name.
	 */
	double keysPer(long names) {
		return (double) this.keys / Math.max(1, names);
	}

	/**
	 * Return the data memory of this difference per lock name, or NaN for fewer than
	 * {@link #MIN_NAMES_FOR_BYTES} names.
	 */
	double bytesPer(long names) {
		return (names >= MIN_NAMES_FOR_BYTES) ? (double) this.dataBytes / names : Double.NaN;
	}

	private static Map<String, String> info(RedisServer server, String section) {
		Map<String, String> fields = new HashMap<>();
		for (String line : String.valueOf(server.command("INFO", section)).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return fields;
	}

	private static long clientMemory(RedisServer server) {
		long total = 0;
		for (String client : String.valueOf(server.command("CLIENT", "LIST")).split("\r?\n")) {
			for (String pair : client.split(" ")) {
				if (pair.startsWith("tot-mem=")) {
					total += Long.parseLong(pair.substring("tot-mem=".length()));
				}
			}
		}
		return total;
	}

	private static long number(Map<String, String> fields, String name) {
		String value = fields.get(name);
		return (value != null) ? Long.parseLong(value) : 0;
	}

}
