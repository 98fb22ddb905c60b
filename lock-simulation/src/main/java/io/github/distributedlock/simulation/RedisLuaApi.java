package io.github.distributedlock.simulation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code redis} table of Redis 7.0's Lua scripts, and Redis's conversions between Lua
 * values and replies. Provided: {@code call}, {@code pcall}, {@code error_reply},
 * {@code status_reply}, {@code sha1hex}, {@code log} (which logs nothing),
 * {@code replicate_commands}, {@code set_repl} and the {@code LOG_*}, {@code REPL_*} and
 * {@code REDIS_VERSION} constants. Not provided: {@code setresp} (RESP2 only),
 * {@code breakpoint} and {@code debug}, and the libraries {@code cjson},
 * {@code cmsgpack}, {@code struct} and {@code bit}.
 */
final class RedisLuaApi {

	private static final LuaString ERR = LuaString.valueOf("err");

	private static final LuaString OK = LuaString.valueOf("ok");

	private RedisLuaApi() {
	}

	/**
	 * Build the {@code redis} table.
	 * @param commands what {@code redis.call} runs
	 */
	static LuaTable table(ScriptCommands commands) {
		LuaTable redis = new LuaTable();
		redis.rawset("call", new Call(commands, true));
		redis.rawset("pcall", new Call(commands, false));
		redis.rawset("error_reply", new SingleFieldReply(ERR));
		redis.rawset("status_reply", new SingleFieldReply(OK));
		redis.rawset("sha1hex", new Sha1Hex());
		redis.rawset("log", new Log());
		redis.rawset("replicate_commands", new Constant(LuaValue.TRUE));
		redis.rawset("set_repl", new Constant(LuaValue.NONE));
		String[] levels = { "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING" };
		for (int i = 0; i < levels.length; i++) {
			redis.rawset(levels[i], LuaValue.valueOf(i));
		}
		String[] targets = { "REPL_NONE", "REPL_AOF", "REPL_SLAVE", "REPL_REPLICA", "REPL_ALL" };
		int[] values = { 0, 1, 2, 2, 3 };
		for (int i = 0; i < targets.length; i++) {
			redis.rawset(targets[i], LuaValue.valueOf(values[i]));
		}
		redis.rawset("REDIS_VERSION", LuaValue.valueOf("7.0.15"));
		redis.rawset("REDIS_VERSION_NUM", LuaValue.valueOf(0x07000f));
		return redis;
	}

	/**
	 * Convert a reply to what {@code redis.call} returns: an integer to a number, a bulk
	 * string to a string, nil to {@code false}, an array to a table, a status to
	 * {@code {ok=...}}, an error to {@code {err=...}}.
	 */
	static LuaValue toLua(@Nullable Object reply) {
		if (reply == null) {
			return LuaValue.FALSE;
		}
		if (reply instanceof String text) {
			return LuaString.valueOf(text);
		}
		if (reply instanceof Long number) {
			long value = number;
			return (value == (int) value) ? LuaValue.valueOf((int) value) : LuaValue.valueOf((double) value);
		}
		if (reply instanceof List<?> items) {
			LuaValue[] values = new LuaValue[items.size()];
			for (int i = 0; i < values.length; i++) {
				values[i] = toLua(items.get(i));
			}
			return LuaValue.listOf(values);
		}
		if (reply instanceof Replies.StatusReply status) {
			return singleField(OK, status.text());
		}
		if (reply instanceof Replies.ErrorReply error) {
			return singleField(ERR, error.message());
		}
		throw new IllegalStateException("Not a reply: " + reply.getClass().getName());
	}

	/**
	 * Convert what a script returns to a reply, as Redis does: a number to an integer
	 * (truncated), a string to a bulk string, {@code true} to 1, {@code false} and nil to
	 * nil, {@code {err=...}} to an error, {@code {ok=...}} to a status, and any other
	 * table to an array of its elements up to the first nil.
	 */
	static @Nullable Object fromLua(LuaValue value) {
		switch (value.type()) {
			case LuaValue.TSTRING:
				return value.tojstring();
			case LuaValue.TNUMBER:
				return Replies.integer((long) value.todouble());
			case LuaValue.TBOOLEAN:
				return value.toboolean() ? Replies.integer(1) : null;
			case LuaValue.TTABLE:
				return fromTable(value);
			default:
				return null;
		}
	}

	private static Object fromTable(LuaValue table) {
		LuaValue error = table.rawget(ERR);
		if (error.type() == LuaValue.TSTRING) {
			return new Replies.ErrorReply(oneLine(error.tojstring()));
		}
		LuaValue status = table.rawget(OK);
		if (status.type() == LuaValue.TSTRING) {
			return new Replies.StatusReply(oneLine(status.tojstring()));
		}
		List<@Nullable Object> items = new ArrayList<>();
		for (int i = 1;; i++) {
			LuaValue item = table.rawget(i);
			if (item.isnil()) {
				return items;
			}
			items.add(fromLua(item));
		}
	}

	/**
	 * Redis replaces line breaks in error and status replies with spaces.
	 */
	static String oneLine(String text) {
		return (text.indexOf('\n') < 0 && text.indexOf('\r') < 0) ? text : text.replace('\r', ' ').replace('\n', ' ');
	}

	static LuaTable singleField(LuaString field, String text) {
		LuaTable table = new LuaTable(0, 1);
		table.rawset(field, LuaString.valueOf(text));
		return table;
	}

	/**
	 * The {@code {err=...}} table of a message that Redis words itself: "ERR " is
	 * prepended unless the message starts with '-' and a code.
	 */
	static LuaTable errorTable(String message) {
		if (message.startsWith("-")) {
			int space = message.indexOf(' ');
			String text = (space < 0) ? "ERR " + message.substring(1) : message.substring(1);
			return singleField(ERR, trimLineBreaks(text));
		}
		return singleField(ERR, "ERR " + trimLineBreaks(message));
	}

	private static String trimLineBreaks(String text) {
		int start = 0;
		int end = text.length();
		while (start < end && (text.charAt(start) == '\r' || text.charAt(start) == '\n')) {
			start++;
		}
		while (end > start && (text.charAt(end - 1) == '\r' || text.charAt(end - 1) == '\n')) {
			end--;
		}
		return text.substring(start, end);
	}

	/**
	 * What {@code redis.call} runs: a command, with the refusals worded as for scripts.
	 */
	@FunctionalInterface
	interface ScriptCommands {

		/**
		 * Run a command from a script.
		 * @param argv the name and the arguments
		 * @return the reply
		 * @throws CommandError the error reply
		 */
		@Nullable Object call(String[] argv);

	}

	/**
	 * {@code redis.call} (which raises an error reply as a Lua error) and
	 * {@code redis.pcall} (which returns it as {@code {err=...}}).
	 */
	private static final class Call extends VarArgFunction {

		private final ScriptCommands commands;

		private final boolean raise;

		Call(ScriptCommands commands, boolean raise) {
			this.commands = commands;
			this.raise = raise;
		}

		@Override
		public Varargs invoke(Varargs args) {
			int count = args.narg();
			if (count == 0) {
				return fail("Please specify at least one argument for this redis lib call");
			}
			String[] argv = new String[count];
			for (int i = 0; i < count; i++) {
				LuaValue arg = args.arg(i + 1);
				int type = arg.type();
				if (type == LuaValue.TSTRING) {
					argv[i] = arg.tojstring();
				}
				else if (type == LuaValue.TNUMBER) {
					// Not Lua's own %.14g, which loses precision.
					argv[i] = CFormat.g(arg.todouble(), 17);
				}
				else {
					return fail("Lua redis lib command arguments must be strings or integers");
				}
			}
			try {
				return toLua(this.commands.call(argv));
			}
			catch (CommandError ex) {
				return fail("-" + ex.reply());
			}
		}

		private LuaValue fail(String message) {
			LuaTable error = errorTable(message);
			if (this.raise) {
				throw new LuaError(error);
			}
			return error;
		}

	}

	/**
	 * {@code redis.error_reply} and {@code redis.status_reply}.
	 */
	private static final class SingleFieldReply extends VarArgFunction {

		private final LuaString field;

		SingleFieldReply(LuaString field) {
			this.field = field;
		}

		@Override
		public Varargs invoke(Varargs args) {
			if (args.narg() != 1 || args.arg1().type() != LuaValue.TSTRING) {
				return errorTable("wrong number or type of arguments");
			}
			String text = args.arg1().tojstring();
			return (this.field == ERR) ? errorTable(text.startsWith("-") ? text : "-" + text) : singleField(OK, text);
		}

	}

	private static final class Sha1Hex extends VarArgFunction {

		@Override
		public Varargs invoke(Varargs args) {
			if (args.narg() != 1) {
				throw new LuaError(errorTable("wrong number of arguments"));
			}
			LuaValue arg = args.arg1();
			String text = (arg.type() == LuaValue.TNUMBER) ? CFormat.g(arg.todouble(), 14) : arg.checkjstring();
			return LuaString.valueOf(sha1(text));
		}

	}

	private static final class Log extends VarArgFunction {

		@Override
		public Varargs invoke(Varargs args) {
			if (args.narg() < 2) {
				throw new LuaError(errorTable("redis.log() requires two arguments or more."));
			}
			return LuaValue.NONE;
		}

	}

	private static final class Constant extends VarArgFunction {

		private final Varargs value;

		Constant(Varargs value) {
			this.value = value;
		}

		@Override
		public Varargs invoke(Varargs args) {
			return this.value;
		}

	}

	static String sha1(String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-1", ex);
		}
	}

}
