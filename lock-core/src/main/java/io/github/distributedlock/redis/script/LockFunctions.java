package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every script as a function of one Redis Functions library ({@code FUNCTION LOAD}, Redis
 * 7.0 and Valkey): {@code lib.lua} is defined once when the library loads, not on every
 * call as with {@code EVALSHA} (docs/design/cost.md). The library and its functions are
 * named after a digest of its text, so engines of different versions sharing one Redis
 * each call their own.
 * <p>
 * A script that takes a lock has no flags, so Redis refuses it whole while memory is
 * full; a read-only one is {@code no-writes}, so nothing a write needs refuses it; every
 * other one releases or renews and is {@code allow-oom}, so a full Redis still lets
 * holders renew and release.
 */
public final class LockFunctions {

	private static final List<LuaScript<?>> READ_ONLY = List.of(LockScripts.READ_HOLD, LockScripts.HELD_MEMBER);

	// Stands in for the digest in the functions' names, so the digest can cover the text.
	private static final String DIGEST_MARK = "@digest@";

	private static final String TEMPLATE = template();

	private static final String DIGEST = LuaScript.sha1Hex(TEMPLATE.getBytes(StandardCharsets.UTF_8)).substring(0, 16);

	public static final String LIBRARY_NAME = "distributedlock_" + DIGEST;

	// Looked up on every call: built once. LuaScript keeps identity equality.
	private static final Map<LuaScript<?>, String> NAMES = LockScripts.ALL.stream()
		.collect(Collectors.toUnmodifiableMap(Function.identity(),
				(script) -> "dl_" + DIGEST + "_" + localName(script.name())));

	private static final byte[] LIBRARY = ("#!lua name=" + LIBRARY_NAME + "\n" + TEMPLATE.replace(DIGEST_MARK, DIGEST))
		.getBytes(StandardCharsets.UTF_8);

	private LockFunctions() {
	}

	public static byte[] library() {
		return LIBRARY.clone();
	}

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

}
