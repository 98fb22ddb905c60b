-- Release one read hold; when the last reader leaves, wake a waiting writer.
--
-- KEYS: readers, read_holds, channel
-- ARGV: owner, keep_ms
--
-- KEYS[1]  the readers sorted set
-- KEYS[2]  the readers' hold counts
-- KEYS[3]  the lock's release channel
-- ARGV[1]  owner
-- ARGV[2]  what is left of the hold's minimum hold, in ms ('0' for none): if the owner's last read
--          hold goes before it has passed, a member 'kept|<owner>' stands in for the reader until
--          then (capped by its lease): writers still wait for it, and no release or extend matches it
--
-- Returns holds left (>= 0), or -1 if this owner's read lease had already ended

local nowMs = now_ms()
local reading = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not reading or tonumber(reading) <= nowMs then
	return -1
end
local keep = tonumber(ARGV[2])
-- Where a kept stand-in ends: after the whole minimum hold (ends_after); with no minimum hold
-- left, now (an existing stand-in keeps its own end).
local keptEnd = (keep > 0) and ends_after(nowMs, keep) or nowMs
local holds = redis.call('HINCRBY', KEYS[2], ARGV[1], -1)
if holds > 0 then
	if keep > 0 then
		-- An inner hold's minimum hold outlives the outer holds, if it must.
		redis.call('ZADD', KEYS[1], 'GT', math.min(keptEnd, tonumber(reading)), 'kept|' .. ARGV[1])
	end
	return holds
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if keep > 0 or redis.call('ZSCORE', KEYS[1], 'kept|' .. ARGV[1]) then
	redis.call('ZADD', KEYS[1], 'GT', math.min(keptEnd, tonumber(reading)), 'kept|' .. ARGV[1])
	if tonumber(redis.call('ZSCORE', KEYS[1], 'kept|' .. ARGV[1])) > nowMs then
		-- Nobody removes the stand-in: the set goes when its last member ends. Writers are
		-- told, as a hint, and learn how long it stays.
		expire_at_latest(KEYS[1], nowMs, KEYS[2])
		redis.call('PUBLISH', KEYS[3], 'readers-left')
		return 0
	end
	redis.call('ZREM', KEYS[1], 'kept|' .. ARGV[1])
end
if redis.call('ZCOUNT', KEYS[1], '(' .. nowMs, '+inf') == 0 then
	redis.call('DEL', KEYS[1], KEYS[2])
	-- Only writers wait for this; readers ignore it.
	redis.call('PUBLISH', KEYS[3], 'readers-left')
end
return 0
