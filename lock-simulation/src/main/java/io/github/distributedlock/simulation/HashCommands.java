package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The hash commands the scripts use, as Redis 7.0 runs them: {@code HSET},
 * {@code HSETNX}, {@code HGET}, {@code HMGET}, {@code HDEL}, {@code HINCRBY},
 * {@code HKEYS}, and {@code HGETALL} for the tests. Fields keep the order they were added
 * in, as a small hash (a listpack) keeps them: {@code HKEYS} answers in that order. A
 * hash past Redis's listpack limits (128 fields, or a value over 64 bytes) is a hash
 * table in Redis, whose order differs; the lock protocol's hashes stay small. A hash
 * emptied by {@code HDEL} is deleted, with the keyspace event {@code del}.
 */
final class HashCommands {

	private HashCommands() {
	}

	static void register(CommandTable table) {
		table.add("HSET", -4, HashCommands::hset);
		table.add("HSETNX", 4, HashCommands::hsetnx);
		table.add("HGET", 3, HashCommands::hget);
		table.add("HMGET", -3, HashCommands::hmget);
		table.add("HDEL", -3, HashCommands::hdel);
		table.add("HINCRBY", 4, HashCommands::hincrby);
		table.add("HKEYS", 2, HashCommands::hkeys);
		table.add("HGETALL", 2, HashCommands::hgetall);
	}

	private static Object hset(CommandContext context, String[] argv) {
		if (argv.length % 2 == 1) {
			throw new CommandError("ERR wrong number of arguments for 'hset' command");
		}
		LinkedHashMap<String, String> hash = writable(context, argv[1]);
		long added = 0;
		for (int i = 2; i < argv.length; i += 2) {
			if (hash.put(argv[i], argv[i + 1]) == null) {
				added++;
			}
		}
		context.keyspace().written(argv[1]);
		return Replies.integer(added);
	}

	private static Object hsetnx(CommandContext context, String[] argv) {
		LinkedHashMap<String, String> hash = writable(context, argv[1]);
		if (hash.containsKey(argv[2])) {
			return Replies.integer(0);
		}
		hash.put(argv[2], argv[3]);
		context.keyspace().written(argv[1]);
		return Replies.integer(1);
	}

	private static @Nullable Object hget(CommandContext context, String[] argv) {
		LinkedHashMap<String, String> hash = context.hash(argv[1]);
		return (hash != null) ? hash.get(argv[2]) : null;
	}

	private static Object hmget(CommandContext context, String[] argv) {
		LinkedHashMap<String, String> hash = context.hash(argv[1]);
		List<@Nullable Object> values = new ArrayList<>(argv.length - 2);
		for (int i = 2; i < argv.length; i++) {
			values.add((hash != null) ? hash.get(argv[i]) : null);
		}
		return values;
	}

	private static Object hdel(CommandContext context, String[] argv) {
		LinkedHashMap<String, String> hash = context.hash(argv[1]);
		if (hash == null) {
			return Replies.integer(0);
		}
		long deleted = 0;
		for (int i = 2; i < argv.length; i++) {
			if (hash.remove(argv[i]) != null) {
				deleted++;
				if (hash.isEmpty()) {
					context.keyspace().delete(argv[1]);
					context.notify("del", argv[1]);
					break;
				}
			}
		}
		if (deleted > 0 && !hash.isEmpty()) {
			context.keyspace().written(argv[1]);
		}
		return Replies.integer(deleted);
	}

	private static Object hincrby(CommandContext context, String[] argv) {
		long increment = RedisNumbers.parseLong(argv[3]);
		LinkedHashMap<String, String> hash = writable(context, argv[1]);
		String current = hash.get(argv[2]);
		long value = (current != null) ? RedisNumbers.parseLong(current, "ERR hash value is not an integer") : 0;
		if ((increment < 0 && value < 0 && increment < Long.MIN_VALUE - value)
				|| (increment > 0 && value > 0 && increment > Long.MAX_VALUE - value)) {
			throw new CommandError("ERR increment or decrement would overflow");
		}
		value += increment;
		hash.put(argv[2], Long.toString(value));
		context.keyspace().written(argv[1]);
		return Replies.integer(value);
	}

	private static Object hkeys(CommandContext context, String[] argv) {
		LinkedHashMap<String, String> hash = context.hash(argv[1]);
		return (hash != null) ? new ArrayList<Object>(hash.keySet()) : List.of();
	}

	private static Object hgetall(CommandContext context, String[] argv) {
		LinkedHashMap<String, String> hash = context.hash(argv[1]);
		List<Object> all = new ArrayList<>();
		if (hash != null) {
			hash.forEach((field, value) -> {
				all.add(field);
				all.add(value);
			});
		}
		return all;
	}

	/**
	 * Return a key's hash, created empty if the key is absent (Redis creates it before it
	 * writes, so a failing write leaves no empty hash behind only because none fails
	 * after this point).
	 */
	private static LinkedHashMap<String, String> writable(CommandContext context, String key) {
		LinkedHashMap<String, String> hash = context.hash(key);
		if (hash == null) {
			hash = new LinkedHashMap<>();
			context.keyspace().put(key, hash);
		}
		return hash;
	}

}
