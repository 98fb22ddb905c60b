package io.github.distributedlock.simulation;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;

/**
 * The exact text of each of the engine's Lua scripts as it is sent to Redis: the
 * {@code lib.lua} functions it calls, then the script. For the simulation and its tests.
 */
public final class ScriptTexts {

	private ScriptTexts() {
	}

	/**
	 * Return the text of every script, by its resource name (such as
	 * {@code acquire.lua}), in the order of {@link LockScripts#ALL}.
	 * @return an unmodifiable map from script name to the text sent
	 */
	public static Map<String, String> all() {
		Map<String, String> texts = new LinkedHashMap<>();
		for (LuaScript<?> script : LockScripts.ALL) {
			texts.put(script.name(), new String(script.text(), StandardCharsets.UTF_8));
		}
		return Collections.unmodifiableMap(texts);
	}

}
