package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every script as a function of one Redis Functions library ({@code FUNCTION LOAD}, Redis
 * 7.0 and Valkey): the whole of {@code lib.lua} is defined once when the library loads,
 * and each script becomes a function of its {@code KEYS} and {@code ARGV}. A call then
 * defines none of the library's functions, as the {@code EVALSHA} text must on every call
 * (docs/design/cost.md). The library and its functions are named after a digest of its
 * text, so engines of different versions sharing one Redis each load and call their own.
 * <p>
 * A script that takes a lock is registered without flags: Redis refuses it whole while
 * memory is full. A script that only reads is {@code no-writes}, so that nothing a write
 * needs ({@code min-replicas-to-write}, free memory) refuses it. Every other script
 * releases or renews, and is {@code allow-oom}, so that a full Redis still lets holders
 * renew and release.
 */
public final class LockFunctions {

	private static final List<LuaScript<?>> READ_ONLY = List.of(LockScripts.READ_HOLD, LockScripts.HELD_MEMBER);

	// The functions' names in the text are the digest of the text with this in their
	// place.
	private static final String DIGEST_MARK = "@digest@";

	private static final String TEMPLATE = template();

	private static final String DIGEST = digest(TEMPLATE).substring(0, 16);

	/**
	 * The library's name: {@code distributedlock_} and the digest of its text.
	 */
	public static final String LIBRARY_NAME = "distributedlock_" + DIGEST;

	// Looked up on every call: built once. LuaScript keeps identity equality.
	private static final Map<LuaScript<?>, String> NAMES = LockScripts.ALL.stream()
		.collect(Collectors.toUnmodifiableMap(Function.identity(),
				(script) -> "dl_" + DIGEST + "_" + localName(script.name())));

	private static final byte[] LIBRARY = ("#!lua name=" + LIBRARY_NAME + "\n" + TEMPLATE.replace(DIGEST_MARK, DIGEST))
		.getBytes(StandardCharsets.UTF_8);

	private LockFunctions() {
	}

	/**
	 * Return the library's text, for {@code FUNCTION LOAD}.
	 */
	public static byte[] library() {
		return LIBRARY.clone();
	}

	/**
	 * Return the name of the function that runs a script.
	 */
	public static String functionName(LuaScript<?> script) {
		String name = NAMES.get(script);
		if (name == null) {
			throw new IllegalArgumentException("Lua script " + script.name() + " is not in the library");
		}
		return name;
	}

	private static String localName(String scriptName) {
		return scriptName.substring(0, scriptName.length() - ".lua".length()).replace('-', '_');
	}

	private static String template() {
		StringBuilder body = new StringBuilder(LuaScript.read(LuaScript.LIBRARY)).append('\n');
		for (LuaScript<?> script : LockScripts.ALL) {
			String local = "script_" + localName(script.name());
			body.append("local function ")
				.append(local)
				.append("(KEYS, ARGV)\n")
				.append(LuaScript.read(script.name()))
				.append("\nend\n")
				.append("redis.register_function{function_name='")
				.append("dl_" + DIGEST_MARK + "_" + localName(script.name()))
				.append("', callback=")
				.append(local)
				.append(flags(script))
				.append("}\n\n");
		}
		return body.toString();
	}

	private static String flags(LuaScript<?> script) {
		if (script.name().startsWith("acquire")) {
			return "";
		}
		return READ_ONLY.contains(script) ? ", flags={'no-writes'}" : ", flags={'allow-oom'}";
	}

	private static String digest(String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

}
