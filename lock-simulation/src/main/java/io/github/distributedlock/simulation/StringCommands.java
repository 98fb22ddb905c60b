package io.github.distributedlock.simulation;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * {@code GET}, and {@code SET} with {@code NX}, {@code XX}, {@code GET}, {@code EX},
 * {@code PX}, {@code EXAT}, {@code PXAT} and {@code KEEPTTL}, as Redis 7.0 parses and
 * runs them. {@code SET} replaces a key of any type, except that with {@code GET} it
 * refuses one that holds no string. A {@code SET} with an expiry publishes the keyspace
 * event {@code expire} (its {@code set} is of the string class, not published here).
 */
final class StringCommands {

	private StringCommands() {
	}

	static void register(CommandTable table) {
		table.add("GET", 2, StringCommands::get);
		table.add("SET", -3, StringCommands::set);
	}

	private static @Nullable Object get(CommandContext context, String[] argv) {
		return context.string(argv[1]);
	}

	private static @Nullable Object set(CommandContext context, String[] argv) {
		boolean nx = false;
		boolean xx = false;
		boolean get = false;
		boolean keepTtl = false;
		@Nullable String unit = null;
		@Nullable String amount = null;
		for (int i = 3; i < argv.length; i++) {
			String option = argv[i].toUpperCase(Locale.ROOT);
			boolean hasNext = i + 1 < argv.length;
			switch (option) {
				case "NX" -> {
					if (xx) {
						throw CommandError.syntax();
					}
					nx = true;
				}
				case "XX" -> {
					if (nx) {
						throw CommandError.syntax();
					}
					xx = true;
				}
				case "GET" -> get = true;
				case "KEEPTTL" -> {
					if (unit != null) {
						throw CommandError.syntax();
					}
					keepTtl = true;
				}
				case "EX", "PX", "EXAT", "PXAT" -> {
					if (keepTtl || (unit != null && !unit.equals(option)) || !hasNext) {
						throw CommandError.syntax();
					}
					unit = option;
					amount = argv[++i];
				}
				default -> throw CommandError.syntax();
			}
		}
		long expireAt = Keyspace.NO_EXPIRY;
		if (unit != null && amount != null) {
			expireAt = expireAt(context, unit, amount);
		}
		@Nullable String old = null;
		if (get) {
			old = context.string(argv[1]);
		}
		Keyspace.Entry found = context.lookup(argv[1]);
		if ((nx && found != null) || (xx && found == null)) {
			return old;
		}
		long keptExpiry = (keepTtl && found != null) ? found.expireAt : Keyspace.NO_EXPIRY;
		Keyspace.Entry entry = context.keyspace().put(argv[1], argv[2]);
		entry.expireAt = (unit != null) ? expireAt : keptExpiry;
		if (unit != null) {
			context.notify("expire", argv[1]);
		}
		return get ? old : Replies.OK;
	}

	private static long expireAt(CommandContext context, String unit, String amount) {
		long value = RedisNumbers.parseLong(amount);
		boolean seconds = unit.equals("EX") || unit.equals("EXAT");
		if (value <= 0 || (seconds && value > Long.MAX_VALUE / 1000)) {
			throw invalidExpireTime();
		}
		long millis = seconds ? value * 1000 : value;
		if (unit.equals("EX") || unit.equals("PX")) {
			long base = context.baseNow();
			if (millis > Long.MAX_VALUE - base) {
				throw invalidExpireTime();
			}
			millis += base;
		}
		return millis;
	}

	private static CommandError invalidExpireTime() {
		return new CommandError("ERR invalid expire time in 'set' command");
	}

}
