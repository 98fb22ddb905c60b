package io.github.distributedlock.redis;

import java.util.List;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The engine's Lua scripts, each with the order of its keys and arguments as its header
 * declares it (the header is the one declaration; these must match it, or loading fails).
 */
final class LockScripts {

	static final LuaScript ACQUIRE = LuaScript.load("acquire.lua", ReturnType.MULTI,
			"lock, fence, readers, writer_intent, requests",
			"owner, hold, lease_ms, reentrant, fence_idle_ms, wait_ms, may_have_intent, holds_it, request, request_ttl_ms");

	static final LuaScript RELEASE = LuaScript.load("release.lua", ReturnType.INTEGER,
			"lock, channel, requests, readers", "owner, token, hold, hand_off, keep_ms, [withdrawn_request]");

	static final LuaScript EXTEND = LuaScript.load("extend.lua", ReturnType.INTEGER, "lock",
			"owner, token, hold, lease_ms");

	static final LuaScript ACQUIRE_READ = LuaScript.load("acquire-read.lua", ReturnType.MULTI,
			"lock, fence, readers, read_holds, writer_intent, requests, channel",
			"owner, hold, lease_ms, reentrant, fence_idle_ms, request, request_ttl_ms");

	static final LuaScript RELEASE_READ = LuaScript.load("release-read.lua", ReturnType.INTEGER,
			"readers, read_holds, channel", "owner, hold, keep_ms");

	static final LuaScript EXTEND_READ = LuaScript.load("extend-read.lua", ReturnType.INTEGER, "readers, read_holds",
			"owner, hold, lease_ms");

	static final LuaScript ACQUIRE_PERMIT = LuaScript.load("acquire-permit.lua", ReturnType.MULTI, "permits, fence",
			"owner, hold, lease_ms, permits, fence_idle_ms");

	static final LuaScript RELEASE_PERMIT = LuaScript.load("release-permit.lua", ReturnType.INTEGER, "permits, channel",
			"owner, hold, keep_ms");

	static final LuaScript EXTEND_PERMIT = LuaScript.load("extend-permit.lua", ReturnType.INTEGER, "permits",
			"owner, hold, lease_ms");

	static final LuaScript ACQUIRE_FAIR = LuaScript.load("acquire-fair.lua", ReturnType.MULTI,
			"lock, fence, readers, queue, queue_heartbeats",
			"owner, hold, lease_ms, reentrant, fence_idle_ms, waiter_timeout_ms, join");

	static final LuaScript RELEASE_FAIR = LuaScript.load("release-fair.lua", ReturnType.INTEGER,
			"lock, channel, queue, queue_heartbeats", "owner, token, hold, keep_ms");

	static final LuaScript LEAVE_FAIR = LuaScript.load("leave-fair.lua", ReturnType.INTEGER,
			"lock, channel, queue, queue_heartbeats", "owner");

	static final LuaScript HELD_MEMBER = LuaScript.load("held-member.lua", ReturnType.INTEGER, "members",
			"owner, suffix");

	static final LuaScript ACQUIRE_ALL = LuaScript.load("acquire-all.lua", ReturnType.MULTI,
			"(lock, fence, readers, requests, channel)...",
			"owner, hold, reentrant, fence_idle_ms, request, request_ttl_ms, (lease_ms)...");

	static final LuaScript RENEW = LuaScript.load("renew.lua", ReturnType.MULTI, "(lock)...",
			"(owner, token, hold, lease_ms)...");

	static final LuaScript READ_HOLD = LuaScript.load("read-hold.lua", ReturnType.MULTI, "lock", "");

	static final LuaScript FORCE_RELEASE = LuaScript.load("force-release.lua", ReturnType.INTEGER, "lock, channel",
			"token");

	static final LuaScript DROP_INTENT = LuaScript.load("drop-intent.lua", ReturnType.INTEGER, "writer_intent",
			"owner");

	/**
	 * Every script, for checks that cover them all.
	 */
	static final List<LuaScript> ALL = List.of(ACQUIRE, RELEASE, EXTEND, ACQUIRE_READ, RELEASE_READ, EXTEND_READ,
			ACQUIRE_PERMIT, RELEASE_PERMIT, EXTEND_PERMIT, ACQUIRE_FAIR, RELEASE_FAIR, LEAVE_FAIR, HELD_MEMBER,
			ACQUIRE_ALL, RENEW, READ_HOLD, FORCE_RELEASE, DROP_INTENT);

	private LockScripts() {
	}

}
