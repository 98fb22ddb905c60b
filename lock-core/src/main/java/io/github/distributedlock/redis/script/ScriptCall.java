package io.github.distributedlock.redis.script;

import java.util.List;

/**
 * One run of a Lua script: the script, its KEYS in the declared order, and the record of
 * its arguments. Built by {@link LuaScript#call}, so that the keys and the arguments are
 * those of this very script.
 */
public record ScriptCall(LuaScript<?> script, List<String> keys, ScriptArgs args) {

	public List<String> argv() {
		return this.args.argv();
	}

}
