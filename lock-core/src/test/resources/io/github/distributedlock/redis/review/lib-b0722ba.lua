-- What the engine's scripts share, written once: LuaScript prepends this text to every script
-- when it loads it, and the script's SHA-1 is taken over the combined text (so EVALSHA works
-- on any Redis from 6.2 on, without FUNCTION LOAD). These are locals of each script: they touch
-- only the keys the script hands them, which the caller passed in KEYS (Cluster routing).

-- The server's clock, read once: milliseconds, and microseconds.
local function server_time()
	local clock = redis.call('TIME')
	local seconds = tonumber(clock[1])
	local micros = tonumber(clock[2])
	return seconds * 1000 + math.floor(micros / 1000), seconds * 1000000 + micros
end

-- The server's clock in milliseconds.
local function now_ms()
	return (server_time())
end

-- The fencing rule, the one place it is written. Tokens must increase strictly for a lock,
-- across processes and across the counter expiring or being lost (a failover): the next token
-- is max(last + 1, server time in microseconds). After a long idle time the counter is gone,
-- and the clock has moved far past any token handed out before. The usual case is one
-- command: SET ... GET stores the clock and reads the previous token at once.
-- now_us: the script's clock reading, or nil to read the clock here.
local function next_token(counter, idle_ms, now_us)
	if not now_us then
		local _, micros = server_time()
		now_us = micros
	end
	local token = string.format('%.0f', now_us)
	local last = redis.call('SET', counter, token, 'PX', idle_ms, 'GET')
	if last and tonumber(last) >= now_us then
		token = string.format('%.0f', tonumber(last) + 1)
		redis.call('SET', counter, token, 'PX', idle_ms)
	end
	return token
end

-- Let a sorted set scored by lease ends (ms), and a key that lives as long as it, expire when
-- its latest lease ends. Nothing happens to an empty set.
local function expire_at_latest(set, now, companion)
	local latest = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')[2]
	if not latest then
		return
	end
	local keep = tonumber(latest) - now
	redis.call('PEXPIRE', set, keep)
	if companion then
		redis.call('PEXPIRE', companion, keep)
	end
end

-- Drop the members of a sorted set scored by when they end (ms) whose time has come: dead
-- waiters, readers and permits whose lease ended. Their entries in a companion sorted set
-- (companion_set) or hash (companion_hash) go with them.
local function drop_ended(set, now, companion_set, companion_hash)
	if not companion_set and not companion_hash then
		redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
		return
	end
	local ended = redis.call('ZRANGEBYSCORE', set, '-inf', now)
	for _, member in ipairs(ended) do
		redis.call('ZREM', set, member)
		if companion_set then
			redis.call('ZREM', companion_set, member)
		end
		if companion_hash then
			redis.call('HDEL', companion_hash, member)
		end
	end
end

-- The owner check: whether a lock hash's hold (held = HMGET lock owner token ...) is this
-- owner's with this token. Returns 0 if it is, -1 if the lock is gone (the lease ran out, or it
-- was force-released), -2 if someone else holds it (another owner, a newer hold of ours, or
-- only a reservation for a waiter's request).
local function check_hold(held, owner, token)
	if not held[1] then
		return -1
	end
	if held[1] == '' or held[1] ~= owner or held[2] ~= token then
		return -2
	end
	return 0
end

-- The minimum hold (holdAtLeast) of a lock hash. When its last hold goes before the minimum
-- hold has passed, the lock stays taken by nobody until then, capped by its lease: owner '' and
-- no reservation, which no acquire, release, extend or renew matches, so it only expires.
-- keep_ms is what is left of the releasing hold's minimum hold; kept_until (server ms, or nil)
-- is the latest end that an inner hold, released earlier, recorded with note_kept. Returns
-- whether the lock was kept.
local function keep_taken(lock, keep_ms, kept_until)
	local keep = tonumber(keep_ms)
	if kept_until then
		local left = tonumber(kept_until) - now_ms()
		if left > keep then
			keep = left
		end
	end
	if keep <= 0 then
		return false
	end
	local pttl = redis.call('PTTL', lock)
	if pttl < keep then
		keep = pttl
	end
	if keep <= 0 then
		return false
	end
	redis.call('HSET', lock, 'owner', '', 'holds', 0)
	redis.call('PEXPIRE', lock, keep)
	return true
end

-- Record the end of an inner hold's minimum hold, released while outer holds remain, so that
-- the last release (keep_taken) honours it too.
local function note_kept(lock, keep_ms, kept_until)
	local keep = tonumber(keep_ms)
	if keep > 0 then
		local ends = now_ms() + keep
		if not kept_until or tonumber(kept_until) < ends then
			redis.call('HSET', lock, 'kept', ends)
		end
	end
end

-- File a waiter's request in a lock's line, keeping its place if it is there already; the line
-- lives for ttl_ms after the last filing. The lock hash, passed only when it exists, is marked
-- 'queued': release.lua looks for requests only in a lock so marked, and every other way a
-- lock is taken while requests may exist marks it too (acquire.lua, acquire-all.lua), so an
-- uncontended release pays nothing for hand-off.
local function file_request(requests, request, now, ttl_ms, lock)
	redis.call('ZADD', requests, 'NX', now, request)
	redis.call('PEXPIRE', requests, ttl_ms)
	if lock then
		redis.call('HSET', lock, 'queued', 1)
	end
end

