package io.github.distributedlock.redis.script;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Makes the engine's Lua scripts, which {@link LuaScript} reads with
 * {@code getResourceAsStream}, part of a native image.
 */
class LockScriptsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/github/distributedlock/redis/script/*.lua");
	}

}
