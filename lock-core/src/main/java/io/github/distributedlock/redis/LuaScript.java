package io.github.distributedlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * One of the engine's Lua scripts: its text and SHA-1, read once from the {@code .lua}
 * resource next to this class, with the order of its keys and arguments. Loading the text
 * once matters: a script read through a {@code Resource} checks the resource's
 * modification time on every call.
 * <p>
 * The shared functions of {@code lib.lua} that a script calls are prepended to it
 * ({@link LuaLibrary}), and the SHA-1 is that of the combined text, so {@code EVALSHA}
 * needs nothing newer than Redis 6.2. Each script declares its {@code KEYS} and
 * {@code ARGV} in its header ({@code -- KEYS: lock,
 * fence}); the declaration given here must be the same, or loading fails, so the key and
 * argument lists built in Java cannot drift from the script.
 */
final class LuaScript {

	static final String LIBRARY = "lib.lua";

	private static final Pattern DECLARATION = Pattern.compile("(?m)^-- (KEYS|ARGV):(.*)$");

	static final LuaLibrary LIBRARY_FUNCTIONS = LuaLibrary.parse(LIBRARY, read(LIBRARY));

	private final String name;

	private final byte[] text;

	private final byte[] sha1;

	private final ReturnType returnType;

	private final ScriptSignature keys;

	private final ScriptSignature args;

	private final @Nullable Function<LockSpec, String>[] fixedKeys;

	private final @Nullable Function<LockSpec, String>[] repeatedKeys;

	private LuaScript(String name, byte[] text, ReturnType returnType, ScriptSignature keys, ScriptSignature args) {
		this.name = name;
		this.text = text;
		this.sha1 = sha1(text);
		this.returnType = returnType;
		this.keys = keys;
		this.args = args;
		this.fixedKeys = specKeys(keys.fixed());
		this.repeatedKeys = specKeys(keys.repeated());
	}

	/**
	 * Load a script, with the library functions it calls prepended.
	 * @param keys the declared {@code KEYS}, as in the script's header
	 * @param args the declared {@code ARGV}, as in the script's header
	 * @throws IllegalStateException if the script is missing or declares other keys or
	 * arguments
	 */
	static LuaScript load(String name, ReturnType returnType, String keys, String args) {
		String script = read(name);
		ScriptSignature declaredKeys = ScriptSignature.parse(keys);
		ScriptSignature declaredArgs = ScriptSignature.parse(args);
		check(name, "KEYS", declaredKeys, header(name, script, "KEYS"));
		check(name, "ARGV", declaredArgs, header(name, script, "ARGV"));
		byte[] text = (LIBRARY_FUNCTIONS.prelude(script) + "\n" + script).getBytes(StandardCharsets.UTF_8);
		return new LuaScript(name, text, returnType, declaredKeys, declaredArgs);
	}

	private static void check(String name, String what, ScriptSignature declared, ScriptSignature header) {
		if (!declared.equals(header)) {
			throw new IllegalStateException("Lua script " + name + " declares " + what + " '" + header
					+ "' in its header, but the engine passes '" + declared + "'");
		}
	}

	/**
	 * Return what a script's header declares for its {@code KEYS} or {@code ARGV}.
	 */
	static ScriptSignature header(String name, String script, String what) {
		Matcher declaration = DECLARATION.matcher(script);
		ScriptSignature found = null;
		while (declaration.find()) {
			if (declaration.group(1).equals(what)) {
				if (found != null) {
					throw new IllegalStateException("Lua script " + name + " declares its " + what + " twice");
				}
				found = ScriptSignature.parse(declaration.group(2));
			}
		}
		if (found == null) {
			throw new IllegalStateException("Lua script " + name + " has no '-- " + what + ":' line in its header");
		}
		return found;
	}

	static String read(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + name + " is missing from the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + name, ex);
		}
	}

	private static byte[] sha1(byte[] text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text);
			return HexFormat.of().formatHex(digest).getBytes(StandardCharsets.US_ASCII);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

	@SuppressWarnings("unchecked")
	private static @Nullable Function<LockSpec, String>[] specKeys(List<String> names) {
		@Nullable Function<LockSpec, String>[] keys = new Function[names.size()];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = specKey(names.get(i));
		}
		return keys;
	}

	/**
	 * Return how a key the scripts name is built for a lock, or {@code null} if it is not
	 * one of a lock spec's keys.
	 */
	private static @Nullable Function<LockSpec, String> specKey(String name) {
		return switch (name) {
			case "lock" -> LockSpec::lockKey;
			case "fence" -> (spec) -> LockKeys.fence(spec.lockKey());
			case "channel" -> LockSpec::releaseChannel;
			case "readers" -> (spec) -> LockKeys.readers(spec.lockKey());
			case "read_holds" -> (spec) -> LockKeys.readHolds(spec.lockKey());
			case "writer_intent" -> (spec) -> LockKeys.writerIntent(spec.lockKey());
			case "requests" -> (spec) -> LockKeys.requests(spec.lockKey());
			case "queue" -> (spec) -> LockKeys.fairQueue(spec.lockKey());
			case "queue_heartbeats" -> (spec) -> LockKeys.fairQueueHeartbeats(spec.lockKey());
			case "permits" -> (spec) -> LockKeys.permits(spec.lockKey());
			default -> null;
		};
	}

	/**
	 * Return the keys of this script for one lock, in the declared order.
	 */
	List<String> keys(LockSpec spec) {
		List<String> keys = new ArrayList<>(this.fixedKeys.length);
		addKeys(this.fixedKeys, this.keys.fixed(), spec, keys);
		return keys;
	}

	/**
	 * Return the keys of this script for several locks, each lock's group in the declared
	 * order.
	 */
	List<String> keys(List<LockSpec> specs) {
		if (this.repeatedKeys.length == 0) {
			throw new IllegalStateException("Lua script " + this.name + " takes the keys of one lock");
		}
		List<String> keys = new ArrayList<>(this.repeatedKeys.length * specs.size());
		for (LockSpec spec : specs) {
			addKeys(this.repeatedKeys, this.keys.repeated(), spec, keys);
		}
		return keys;
	}

	private void addKeys(@Nullable Function<LockSpec, String>[] builders, List<String> names, LockSpec spec,
			List<String> keys) {
		for (int i = 0; i < builders.length; i++) {
			Function<LockSpec, String> builder = builders[i];
			if (builder == null) {
				throw new IllegalStateException("Lua script " + this.name + " takes key '" + names.get(i)
						+ "', which is not a key of a lock; pass its keys explicitly");
			}
			keys.add(builder.apply(spec));
		}
	}

	/**
	 * Check that a call passes as many keys and arguments as the script declares.
	 * @throws IllegalArgumentException if it does not
	 */
	void checkArity(int keyCount, int argCount) {
		if (!this.keys.accepts(keyCount) || !this.args.accepts(argCount)) {
			throw new IllegalArgumentException("Lua script " + this.name + " takes KEYS '" + this.keys + "' and ARGV '"
					+ this.args + "', but was passed " + keyCount + " keys and " + argCount + " arguments");
		}
	}

	String name() {
		return this.name;
	}

	byte[] text() {
		return this.text;
	}

	byte[] sha1() {
		return this.sha1;
	}

	ReturnType returnType() {
		return this.returnType;
	}

	ScriptSignature keySignature() {
		return this.keys;
	}

	ScriptSignature argSignature() {
		return this.args;
	}

}
