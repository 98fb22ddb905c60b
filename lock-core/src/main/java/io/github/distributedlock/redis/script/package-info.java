/**
 * The Lua scripts, their keys and arguments, each lock kind's calls, the runner and the
 * replies. Internal: not an API; may change in any release.
 */
@NullMarked
package io.github.distributedlock.redis.script;

import org.jspecify.annotations.NullMarked;
