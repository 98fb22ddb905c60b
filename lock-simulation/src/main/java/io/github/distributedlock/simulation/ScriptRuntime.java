package io.github.distributedlock.simulation;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * One Lua VM (LuaJ) set up as Redis 7.0 sets up its scripting VM: the base, table, string
 * and math libraries, the {@code redis} table ({@link RedisLuaApi}), globals that scripts
 * may neither create nor read when undefined, and {@code KEYS} and {@code ARGV} set for
 * each call. A script is compiled once ({@link #compile}) and its closure made once per
 * VM; a call only sets {@code KEYS} and {@code ARGV}.
 * <p>
 * LuaJ implements Lua 5.2; where Redis's Lua 5.1 differs in a way scripts can see, it is
 * made to behave as 5.1: {@code tostring} of a number ({@code %.14g}),
 * {@code string.format} ({@link LuaStringFormat}), {@code unpack}, and
 * {@code math.random} (Redis's {@code lrand48}, from its unseeded state when the VM
 * starts and never reseeded between scripts, as a Redis 7.0 server's). Left as LuaJ has
 * them: numbers of 15 or more digits, and fractions, turned into text by {@code ..} (LuaJ
 * prints all digits of a whole number and a float's shortest form of a fraction); the
 * wording of Lua's own runtime errors; {@code getfenv}, {@code setfenv} and
 * {@code loadstring}, which 5.1 has and LuaJ lacks.
 */
final class ScriptRuntime {

	private static final Pattern POSITION = Pattern.compile("@user_script:(\\d+) (.*)", Pattern.DOTALL);

	private static final Globals COMPILER = compiler();

	private static final LuaString KEYS = LuaString.valueOf("KEYS");

	private static final LuaString ARGV = LuaString.valueOf("ARGV");

	private final Globals globals;

	/**
	 * What scripts see as their globals: an empty table that reads through to
	 * {@link #globals} and refuses every write, as Redis 7.0's read-only globals do.
	 */
	private final LuaTable environment = new LuaTable();

	private final Lrand48 random = new Lrand48();

	private final Map<String, LuaClosure> closures = new HashMap<>();

	/**
	 * Create a VM.
	 * @param commands what {@code redis.call} runs
	 */
	ScriptRuntime(RedisLuaApi.ScriptCommands commands) {
		this.globals = new Globals();
		this.globals.STDOUT = new PrintStream(OutputStream.nullOutputStream());
		this.globals.load(new BaseLib());
		this.globals.load(new PackageLib());
		this.globals.load(new TableLib());
		this.globals.load(new StringLib());
		this.globals.load(new JseMathLib());
		LoadState.install(this.globals);
		LuaC.install(this.globals);
		for (String absent : new String[] { "dofile", "loadfile", "require", "module", "package" }) {
			this.globals.rawset(absent, LuaValue.NIL);
		}
		this.globals.rawset("unpack", this.globals.get("table").get("unpack"));
		this.globals.rawset("tostring", new ToString(this.globals.get("tostring")));
		this.globals.get("string").rawset("format", new LuaStringFormat());
		this.globals.get("math").rawset("random", this.random.randomFunction());
		this.globals.get("math").rawset("randomseed", this.random.seedFunction());
		this.globals.rawset("redis", RedisLuaApi.table(commands));
		LuaTable undefined = new LuaTable();
		undefined.rawset("__index", new GlobalGuard(true));
		this.globals.setmetatable(undefined);
		LuaTable readOnly = new LuaTable();
		readOnly.rawset("__index", this.globals);
		readOnly.rawset("__newindex", new GlobalGuard(false));
		this.environment.setmetatable(readOnly);
	}

	/**
	 * Compile a script's text, once for every VM.
	 * @param name what the script is called, for messages
	 * @param text the text, as sent to Redis
	 * @return the compiled script
	 * @throws IllegalArgumentException if the text does not compile
	 */
	static CompiledScript compile(String name, String text) {
		try {
			Prototype prototype;
			synchronized (COMPILER) {
				prototype = COMPILER.compilePrototype(new StringReader(text), "@user_script");
			}
			untail(prototype);
			return new CompiledScript(name, RedisLuaApi.sha1(text), prototype);
		}
		catch (LuaError ex) {
			throw new IllegalArgumentException("Script " + name + " does not compile: " + ex.getMessage(), ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Run a script, as {@code EVAL} does.
	 * @return its reply, an {@link Replies.ErrorReply} if it raised an error
	 */
	@Nullable Object run(CompiledScript script, List<String> keys, List<String> args) {
		LuaClosure closure = this.closures.computeIfAbsent(script.sha(),
				(sha) -> new LuaClosure(script.prototype(), this.environment));
		this.globals.rawset(KEYS, list(keys));
		this.globals.rawset(ARGV, list(args));
		try {
			return RedisLuaApi.fromLua(closure.call());
		}
		catch (LuaError ex) {
			return errorReply(ex, script.sha());
		}
	}

	/**
	 * Turn every tail call into a call followed by the return that already follows it.
	 * Lua 5.1 runs a tail call of a C function ({@code return redis.call(...)}) inside
	 * the caller's frame, so Redis reports an error it raises at the caller's line; LuaJ
	 * runs tail calls after the caller's frame is gone, which would lose the line.
	 * Nothing else changes but the depth of the Lua stack, which the scripts never nest
	 * deeply.
	 */
	private static void untail(Prototype prototype) {
		int[] code = prototype.code;
		for (int pc = 0; pc < code.length; pc++) {
			if ((code[pc] & Lua.MASK_OP) == Lua.OP_TAILCALL) {
				// TAILCALL A B 0 becomes CALL A B 0: all results, returned by the RETURN
				// A 0 after it.
				code[pc] = (code[pc] & Lua.MASK_NOT_OP & Lua.MASK_NOT_C) | (Lua.OP_CALL << Lua.POS_OP);
			}
		}
		for (Prototype nested : prototype.p) {
			untail(nested);
		}
	}

	private static LuaTable list(List<String> values) {
		LuaValue[] items = new LuaValue[values.size()];
		for (int i = 0; i < items.length; i++) {
			items[i] = LuaString.valueOf(values.get(i));
		}
		return LuaValue.listOf(items);
	}

	/**
	 * Word a script's error as Redis 7.0's error handler does: the error (Lua's own
	 * messages as {@code ERR user_script:<line>: ...}), then where it was raised.
	 */
	private static Replies.ErrorReply errorReply(LuaError error, String sha) {
		Throwable cause = error.getCause();
		if (cause != null && !(cause instanceof LuaError)) {
			throw new IllegalStateException("The model failed inside a script: " + cause, cause);
		}
		String message = String.valueOf(error.getMessage());
		Matcher position = POSITION.matcher(message);
		String line = position.matches() ? position.group(1) : null;
		LuaValue object = error.getMessageObject();
		String text;
		if (object != null && object.istable()) {
			LuaValue err = object.rawget("err");
			text = err.isstring() ? err.tojstring() : "ERR unknown error";
		}
		else {
			String raw = (line != null) ? position.group(2) : message;
			text = "ERR " + ((line != null) ? "user_script:" + line + ": " : "") + raw;
		}
		if (line != null) {
			text = text + " script: " + sha + ", on @user_script:" + line + ".";
		}
		return new Replies.ErrorReply(RedisLuaApi.oneLine(text));
	}

	private static Globals compiler() {
		Globals globals = new Globals();
		LoadState.install(globals);
		LuaC.install(globals);
		return globals;
	}

	/**
	 * A script compiled once, shared by every VM.
	 *
	 * @param name its name
	 * @param sha the SHA-1 of its text, as Redis names it
	 * @param prototype the compiled code
	 */
	record CompiledScript(String name, String sha, Prototype prototype) {
	}

	/**
	 * Refuses what Redis 7.0 refuses of globals: reading one that is not defined, and
	 * creating or changing one.
	 */
	private static final class GlobalGuard extends VarArgFunction {

		private final boolean read;

		GlobalGuard(boolean read) {
			this.read = read;
		}

		@Override
		public Varargs invoke(Varargs args) {
			if (this.read) {
				throw new LuaError(
						"Script attempted to access nonexistent global variable '" + args.arg(2).tojstring() + "'");
			}
			throw new LuaError("Attempt to modify a readonly table");
		}

	}

	/**
	 * Lua 5.1's {@code tostring}: numbers as {@code %.14g}.
	 */
	private static final class ToString extends VarArgFunction {

		private final LuaValue original;

		ToString(LuaValue original) {
			this.original = original;
		}

		@Override
		public Varargs invoke(Varargs args) {
			LuaValue value = args.arg1();
			if (value.type() == LuaValue.TNUMBER) {
				return LuaString.valueOf(CFormat.g(value.todouble(), 14));
			}
			return this.original.invoke(args);
		}

	}

	/**
	 * Redis's {@code math.random}: {@code lrand48}, which a 7.0 server starts from the
	 * state {@code lrand48} has before any seed and never reseeds between scripts (the
	 * differential test shows it: two runs of one script draw different numbers).
	 */
	private static final class Lrand48 {

		private static final long MASK = (1L << 48) - 1;

		private static final int MAX = Integer.MAX_VALUE;

		private long state = 0x1234ABCD330EL;

		void seed(int seed) {
			this.state = ((long) seed << 16 | 0x330E) & MASK;
		}

		int next() {
			this.state = (this.state * 0x5DEECE66DL + 0xB) & MASK;
			return (int) (this.state >>> 17);
		}

		VarArgFunction randomFunction() {
			return new VarArgFunction() {
				@Override
				public Varargs invoke(Varargs args) {
					double r = (double) (Lrand48.this.next() % MAX) / MAX;
					return switch (args.narg()) {
						case 0 -> LuaValue.valueOf(r);
						case 1 -> {
							int upper = args.checkint(1);
							if (upper < 1) {
								throw new LuaError("bad argument #1 to 'random' (interval is empty)");
							}
							yield LuaValue.valueOf(Math.floor(r * upper) + 1);
						}
						case 2 -> {
							int lower = args.checkint(1);
							int upper = args.checkint(2);
							if (lower > upper) {
								throw new LuaError("bad argument #2 to 'random' (interval is empty)");
							}
							yield LuaValue.valueOf(Math.floor(r * (upper - lower + 1)) + lower);
						}
						default -> throw new LuaError("wrong number of arguments");
					};
				}
			};
		}

		TwoArgFunction seedFunction() {
			return new TwoArgFunction() {
				@Override
				public LuaValue call(LuaValue seed, LuaValue unused) {
					Lrand48.this.seed(seed.checkint());
					return LuaValue.NONE;
				}
			};
		}

	}

}
