package io.github.distributedlock.simulation;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engine's Lua scripts, compiled once from the exact text the engine sends
 * ({@link ScriptTexts}: the library functions a script calls, then the script), by their
 * resource names ({@code acquire.lua}, ...).
 */
final class EngineScripts {

	private static final Map<String, ScriptRuntime.CompiledScript> SCRIPTS = compileAll();

	private EngineScripts() {
	}

	/**
	 * Return a compiled script.
	 * @param name its resource name, such as {@code acquire.lua}
	 * @return the script
	 * @throws IllegalArgumentException if the engine has no such script
	 */
	static ScriptRuntime.CompiledScript get(String name) {
		ScriptRuntime.CompiledScript script = SCRIPTS.get(name);
		if (script == null) {
			throw new IllegalArgumentException("The engine has no script '" + name + "'; it has " + SCRIPTS.keySet());
		}
		return script;
	}

	/**
	 * Return every script, by name, in the engine's order.
	 */
	static Map<String, ScriptRuntime.CompiledScript> all() {
		return SCRIPTS;
	}

	private static Map<String, ScriptRuntime.CompiledScript> compileAll() {
		Map<String, ScriptRuntime.CompiledScript> scripts = new LinkedHashMap<>();
		ScriptTexts.all().forEach((name, text) -> scripts.put(name, ScriptRuntime.compile(name, text)));
		return Collections.unmodifiableMap(scripts);
	}

}
