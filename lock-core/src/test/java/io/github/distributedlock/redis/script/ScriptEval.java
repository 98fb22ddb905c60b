package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.test.RedisServer;

/**
 * Runs the engine's scripts straight on a redis-server, as {@code EVAL} of their full
 * text (the library included), for tests that look at what one script does; and reads the
 * server's clock.
 */
public final class ScriptEval {

	private ScriptEval() {
	}

	public static Object eval(RedisServer server, LuaScript<?> script, List<String> keys, String... args) {
		List<String> command = new ArrayList<>(
				List.of("EVAL", new String(script.text(), StandardCharsets.UTF_8), Integer.toString(keys.size())));
		command.addAll(keys);
		command.addAll(List.of(args));
		return server.command(command.toArray(String[]::new));
	}

	/**
	 * Return the server's clock in milliseconds, truncated as the scripts read it.
	 */
	public static long serverMillis(RedisServer server) {
		List<?> clock = (List<?>) server.command("TIME");
		return Long.parseLong(String.valueOf(clock.get(0))) * 1000
				+ Long.parseLong(String.valueOf(clock.get(1))) / 1000;
	}

}
