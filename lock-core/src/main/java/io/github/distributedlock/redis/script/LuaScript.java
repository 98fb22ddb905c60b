package io.github.distributedlock.redis.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import io.github.distributedlock.redis.core.LockSpec;

import org.springframework.data.redis.connection.ReturnType;

/**
 * One of the engine's Lua scripts: its text and SHA-1, read once from the {@code .lua}
 * resource next to this class (a script read through a {@code Resource} checks its
 * modification time on every call), with its keys in order and the record of its
 * arguments. The {@code lib.lua} functions it calls are prepended ({@link LuaLibrary})
 * and the SHA-1 is that of the combined text, so {@code EVALSHA} needs nothing newer than
 * Redis 6.2.
 */
public final class LuaScript<A extends ScriptArgs> {

	static final String LIBRARY = "lib.lua";

	static final LuaLibrary LIBRARY_FUNCTIONS = LuaLibrary.parse(LIBRARY, read(LIBRARY));

	private final String name;

	private final byte[] text;

	private final byte[] sha1;

	private final ReturnType returnType;

	private final Class<A> argsType;

	private final List<ScriptKey> keys;

	private final boolean keysPerLock;

	private LuaScript(String name, byte[] text, ReturnType returnType, Class<A> argsType, List<ScriptKey> keys,
			boolean keysPerLock) {
		this.name = name;
		this.text = text;
		this.sha1 = sha1Hex(text).getBytes(StandardCharsets.US_ASCII);
		this.returnType = returnType;
		this.argsType = argsType;
		this.keys = keys;
		this.keysPerLock = keysPerLock;
	}

	/**
	 * Load a script that takes the given keys of one lock.
	 * @throws IllegalStateException if the script is missing
	 */
	static <A extends ScriptArgs> LuaScript<A> load(String name, ReturnType returnType, Class<A> argsType,
			ScriptKey... keys) {
		return new LuaScript<>(name, text(name), returnType, argsType, List.of(keys), false);
	}

	/**
	 * Load a script that takes the given keys once for each lock.
	 * @throws IllegalStateException if the script is missing
	 */
	static <A extends ScriptArgs> LuaScript<A> loadForEachLock(String name, ReturnType returnType, Class<A> argsType,
			ScriptKey... keys) {
		return new LuaScript<>(name, text(name), returnType, argsType, List.of(keys), true);
	}

	private static byte[] text(String name) {
		String script = read(name);
		return LIBRARY_FUNCTIONS.link(script).getBytes(StandardCharsets.UTF_8);
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

	/**
	 * Return the SHA-1 of a text, in lower-case hex, as Redis names a script.
	 */
	static String sha1Hex(byte[] text) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

	/**
	 * Build a run of this script on the keys of one lock.
	 * @throws IllegalStateException if it takes the keys of several locks, or a key a
	 * lock spec does not say
	 */
	ScriptCall call(LockSpec spec, A args) {
		if (this.keysPerLock) {
			throw new IllegalStateException("Lua script " + this.name + " takes the keys of several locks");
		}
		return new ScriptCall(this, keysOf(List.of(spec)), args);
	}

	/**
	 * Build a run of this script on the keys of several locks.
	 * @throws IllegalStateException if the script takes the keys of one lock
	 */
	ScriptCall call(List<LockSpec> specs, A args) {
		if (!this.keysPerLock) {
			throw new IllegalStateException("Lua script " + this.name + " takes the keys of one lock");
		}
		return new ScriptCall(this, keysOf(specs), args);
	}

	private List<String> keysOf(List<LockSpec> specs) {
		return specs.stream().flatMap((spec) -> this.keys.stream().map((key) -> key.of(spec))).toList();
	}

	/**
	 * Build a run of this script on keys the caller built, in the declared order.
	 * @throws IllegalArgumentException if there are not as many keys as declared
	 */
	public ScriptCall callWithKeys(List<String> keys, A args) {
		if (this.keysPerLock || keys.size() != this.keys.size()) {
			throw new IllegalArgumentException("Lua script " + this.name + " takes KEYS " + this.keys
					+ ((this.keysPerLock) ? " for each lock" : "") + ", but was passed " + keys);
		}
		return new ScriptCall(this, List.copyOf(keys), args);
	}

	public String name() {
		return this.name;
	}

	public byte[] text() {
		return this.text;
	}

	public byte[] sha1() {
		return this.sha1;
	}

	public ReturnType returnType() {
		return this.returnType;
	}

	Class<A> argsType() {
		return this.argsType;
	}

	List<ScriptKey> keys() {
		return this.keys;
	}

	boolean keysPerLock() {
		return this.keysPerLock;
	}

}
