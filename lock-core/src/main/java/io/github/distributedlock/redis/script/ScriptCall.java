package io.github.distributedlock.redis.script;

import java.util.List;

/**
 * One run of a Lua script: the script, its KEYS in the order the script declares them,
 * and the record of its arguments. Built by {@link LuaScript#call}, so that the keys and
 * the arguments are those of this very script.
 *
 * @param script the script
 * @param keys the keys
 * @param args the arguments
 */
public record ScriptCall(LuaScript<?> script, List<String> keys, ScriptArgs args) {

	/**
	 * Return the values the script reads as {@code ARGV}, in order.
	 */
	public List<String> argv() {
		return this.args.argv();
	}

}
