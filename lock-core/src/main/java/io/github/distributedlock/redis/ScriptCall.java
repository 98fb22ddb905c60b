package io.github.distributedlock.redis;

import java.util.List;

/**
 * One run of a Lua script: the script, its KEYS and its ARGV, in the order the script
 * declares them.
 *
 * @param script the script
 * @param keys the keys
 * @param args the arguments
 */
record ScriptCall(LuaScript script, List<String> keys, Object... args) {

}
