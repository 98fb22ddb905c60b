package io.github.distributedlock.redis.script;

import java.util.List;

import org.springframework.data.redis.connection.ReturnType;

import static io.github.distributedlock.redis.script.ScriptKey.CHANNEL;
import static io.github.distributedlock.redis.script.ScriptKey.FENCE;
import static io.github.distributedlock.redis.script.ScriptKey.LOCK;
import static io.github.distributedlock.redis.script.ScriptKey.MEMBERS;
import static io.github.distributedlock.redis.script.ScriptKey.PERMITS;
import static io.github.distributedlock.redis.script.ScriptKey.QUEUE;
import static io.github.distributedlock.redis.script.ScriptKey.QUEUE_HEARTBEATS;
import static io.github.distributedlock.redis.script.ScriptKey.READERS;
import static io.github.distributedlock.redis.script.ScriptKey.READ_HOLDS;
import static io.github.distributedlock.redis.script.ScriptKey.REQUESTS;
import static io.github.distributedlock.redis.script.ScriptKey.WRITER_INTENT;

/**
 * The engine's Lua scripts, each with its keys in order and the record of its arguments
 * ({@link ScriptArgs}): the one declaration of both orders, which each script's header
 * repeats for Lua readers ({@code LockScriptsTests} keeps them equal).
 */
public final class LockScripts {

	public static final LuaScript<ScriptArgs.Acquire> ACQUIRE = LuaScript.load("acquire.lua", ReturnType.MULTI,
			ScriptArgs.Acquire.class, LOCK, FENCE, READERS, WRITER_INTENT, REQUESTS);

	public static final LuaScript<ScriptArgs.Release> RELEASE = LuaScript.load("release.lua", ReturnType.INTEGER,
			ScriptArgs.Release.class, LOCK, CHANNEL, REQUESTS, READERS);

	static final LuaScript<ScriptArgs.Extend> EXTEND = LuaScript.load("extend.lua", ReturnType.INTEGER,
			ScriptArgs.Extend.class, LOCK);

	public static final LuaScript<ScriptArgs.AcquireRead> ACQUIRE_READ = LuaScript.load("acquire-read.lua",
			ReturnType.MULTI, ScriptArgs.AcquireRead.class, LOCK, FENCE, READERS, READ_HOLDS, WRITER_INTENT, REQUESTS,
			CHANNEL);

	public static final LuaScript<ScriptArgs.ReleaseMember> RELEASE_READ = LuaScript.load("release-read.lua",
			ReturnType.INTEGER, ScriptArgs.ReleaseMember.class, READERS, READ_HOLDS, CHANNEL);

	public static final LuaScript<ScriptArgs.ExtendMember> EXTEND_READ = LuaScript.load("extend-read.lua",
			ReturnType.INTEGER, ScriptArgs.ExtendMember.class, READERS, READ_HOLDS);

	public static final LuaScript<ScriptArgs.AcquirePermit> ACQUIRE_PERMIT = LuaScript.load("acquire-permit.lua",
			ReturnType.MULTI, ScriptArgs.AcquirePermit.class, PERMITS, FENCE);

	public static final LuaScript<ScriptArgs.ReleaseMember> RELEASE_PERMIT = LuaScript.load("release-permit.lua",
			ReturnType.INTEGER, ScriptArgs.ReleaseMember.class, PERMITS, CHANNEL);

	public static final LuaScript<ScriptArgs.ExtendMember> EXTEND_PERMIT = LuaScript.load("extend-permit.lua",
			ReturnType.INTEGER, ScriptArgs.ExtendMember.class, PERMITS);

	static final LuaScript<ScriptArgs.AcquireFair> ACQUIRE_FAIR = LuaScript.load("acquire-fair.lua", ReturnType.MULTI,
			ScriptArgs.AcquireFair.class, LOCK, FENCE, READERS, QUEUE, QUEUE_HEARTBEATS);

	static final LuaScript<ScriptArgs.ReleaseFair> RELEASE_FAIR = LuaScript.load("release-fair.lua", ReturnType.INTEGER,
			ScriptArgs.ReleaseFair.class, LOCK, CHANNEL, QUEUE, QUEUE_HEARTBEATS);

	static final LuaScript<ScriptArgs.LeaveFair> LEAVE_FAIR = LuaScript.load("leave-fair.lua", ReturnType.INTEGER,
			ScriptArgs.LeaveFair.class, LOCK, CHANNEL, QUEUE, QUEUE_HEARTBEATS);

	static final LuaScript<ScriptArgs.HeldMember> HELD_MEMBER = LuaScript.load("held-member.lua", ReturnType.INTEGER,
			ScriptArgs.HeldMember.class, MEMBERS);

	static final LuaScript<ScriptArgs.AcquireAll> ACQUIRE_ALL = LuaScript.loadForEachLock("acquire-all.lua",
			ReturnType.MULTI, ScriptArgs.AcquireAll.class, LOCK, FENCE, READERS, REQUESTS, CHANNEL);

	static final LuaScript<ScriptArgs.Renew> RENEW = LuaScript.loadForEachLock("renew.lua", ReturnType.MULTI,
			ScriptArgs.Renew.class, LOCK);

	public static final LuaScript<ScriptArgs.ReadHold> READ_HOLD = LuaScript.load("read-hold.lua", ReturnType.MULTI,
			ScriptArgs.ReadHold.class, LOCK);

	public static final LuaScript<ScriptArgs.ForceRelease> FORCE_RELEASE = LuaScript.load("force-release.lua",
			ReturnType.INTEGER, ScriptArgs.ForceRelease.class, LOCK, CHANNEL);

	static final LuaScript<ScriptArgs.DropIntent> DROP_INTENT = LuaScript.load("drop-intent.lua", ReturnType.INTEGER,
			ScriptArgs.DropIntent.class, WRITER_INTENT, CHANNEL);

	public static final List<LuaScript<?>> ALL = List.of(ACQUIRE, RELEASE, EXTEND, ACQUIRE_READ, RELEASE_READ,
			EXTEND_READ, ACQUIRE_PERMIT, RELEASE_PERMIT, EXTEND_PERMIT, ACQUIRE_FAIR, RELEASE_FAIR, LEAVE_FAIR,
			HELD_MEMBER, ACQUIRE_ALL, RENEW, READ_HOLD, FORCE_RELEASE, DROP_INTENT);

	private LockScripts() {
	}

}
