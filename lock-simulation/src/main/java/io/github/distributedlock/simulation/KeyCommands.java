package io.github.distributedlock.simulation;

import java.util.List;
import java.util.Locale;

/**
 * The commands on keys of any type, and the server commands the scripts use: {@code DEL},
 * {@code EXISTS}, {@code PEXPIRE} (with {@code NX}, {@code XX}, {@code GT}, {@code LT}),
 * {@code PTTL}, {@code PEXPIRETIME}, {@code TYPE}, {@code TIME} and {@code PUBLISH}, as
 * Redis 7.0 runs them. A key given a time in the past is deleted at once, as on a master.
 * Their keyspace events: {@code del} for each key {@code DEL} deletes and for a key
 * {@code PEXPIRE} deletes, {@code expire} for a time set.
 */
final class KeyCommands {

	private KeyCommands() {
	}

	static void register(CommandTable table) {
		table.add("DEL", -2, KeyCommands::del);
		table.add("EXISTS", -2, KeyCommands::exists);
		table.add("PEXPIRE", -3, KeyCommands::pexpire);
		table.add("PTTL", 2, KeyCommands::pttl);
		table.add("PEXPIRETIME", 2, KeyCommands::pexpiretime);
		table.add("TYPE", 2, KeyCommands::type);
		table.add("TIME", 1, KeyCommands::time);
		table.add("PUBLISH", 3, KeyCommands::publish);
	}

	private static Object del(CommandContext context, String[] argv) {
		long deleted = 0;
		for (int i = 1; i < argv.length; i++) {
			if (context.lookup(argv[i]) != null) {
				context.keyspace().delete(argv[i]);
				context.notify("del", argv[i]);
				deleted++;
			}
		}
		return Replies.integer(deleted);
	}

	private static Object exists(CommandContext context, String[] argv) {
		long found = 0;
		for (int i = 1; i < argv.length; i++) {
			if (context.lookup(argv[i]) != null) {
				found++;
			}
		}
		return Replies.integer(found);
	}

	private static Object pexpire(CommandContext context, String[] argv) {
		boolean nx = false;
		boolean xx = false;
		boolean gt = false;
		boolean lt = false;
		for (int i = 3; i < argv.length; i++) {
			switch (argv[i].toUpperCase(Locale.ROOT)) {
				case "NX" -> nx = true;
				case "XX" -> xx = true;
				case "GT" -> gt = true;
				case "LT" -> lt = true;
				default -> throw new CommandError("ERR Unsupported option " + argv[i]);
			}
		}
		if (nx && (xx || gt || lt)) {
			throw new CommandError("ERR NX and XX, GT or LT options at the same time are not compatible");
		}
		if (gt && lt) {
			throw new CommandError("ERR GT and LT options at the same time are not compatible");
		}
		long when = RedisNumbers.parseLong(argv[2]);
		long base = context.baseNow();
		if (when > Long.MAX_VALUE - base) {
			throw new CommandError("ERR invalid expire time in 'pexpire' command");
		}
		when += base;
		Keyspace.Entry entry = context.lookup(argv[1]);
		if (entry == null) {
			return Replies.integer(0);
		}
		long current = entry.expireAt;
		boolean none = current == Keyspace.NO_EXPIRY;
		if ((nx && !none) || (xx && none) || (gt && (none || when <= current)) || (lt && !none && when >= current)) {
			return Replies.integer(0);
		}
		// Redis 7.0 compares with the running clock here (checkAlreadyExpired), 7.2 with
		// the command's snapshot: baseNow() is the one each reads.
		if (when <= context.baseNow()) {
			context.keyspace().delete(argv[1]);
			context.notify("del", argv[1]);
			return Replies.integer(1);
		}
		entry.expireAt = when;
		context.keyspace().written(argv[1]);
		context.notify("expire", argv[1]);
		return Replies.integer(1);
	}

	private static Object pttl(CommandContext context, String[] argv) {
		Keyspace.Entry entry = context.lookup(argv[1]);
		if (entry == null) {
			return Replies.integer(-2);
		}
		if (entry.expireAt == Keyspace.NO_EXPIRY) {
			return Replies.integer(-1);
		}
		return Replies.integer(Math.max(0, entry.expireAt - context.baseNow()));
	}

	private static Object pexpiretime(CommandContext context, String[] argv) {
		Keyspace.Entry entry = context.lookup(argv[1]);
		if (entry == null) {
			return Replies.integer(-2);
		}
		return Replies.integer(entry.expireAt);
	}

	private static Object type(CommandContext context, String[] argv) {
		Keyspace.Entry entry = context.lookup(argv[1]);
		return new Replies.StatusReply((entry != null) ? entry.type() : "none");
	}

	private static Object time(CommandContext context, String[] argv) {
		long micros = context.clock().micros();
		return List.of(Long.toString(micros / 1_000_000), Long.toString(micros % 1_000_000));
	}

	private static Object publish(CommandContext context, String[] argv) {
		return Replies.integer(context.publish(argv[1], argv[2]));
	}

}
