/**
 * The Lua scripts: their files, their key and argument records, each lock kind's calls,
 * the runner that sends them, and the reading of their replies. Internal: not an API; may
 * change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.script;

import org.jspecify.annotations.NullMarked;
