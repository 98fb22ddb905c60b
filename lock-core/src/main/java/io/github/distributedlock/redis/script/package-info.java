/**
 * The Lua scripts, their keys and arguments, each lock kind's calls and the replies; no
 * I/O: {@code server.ScriptRunner} runs them. Internal: not an API; may change in any
 * release.
 */
@NullMarked
package io.github.distributedlock.redis.script;

import org.jspecify.annotations.NullMarked;
