-- Release one read hold; when the last reader leaves (stand-ins of kept readers aside), wake a
-- waiting writer.
--
-- KEYS: readers, read_holds, channel
-- ARGV: owner, hold, keep_ms
-- KEYS[1]  the readers sorted set (reader owners' digests, scored by lease end)
-- KEYS[2]  the readers' holds: reader owner (digest) -> ',<hold>,<hold>,'
-- KEYS[3]  the lock's release channel
-- ARGV[1]  owner
-- ARGV[2]  the hold's id
-- ARGV[3]  what is left of the hold's minimum hold, in ms ('0' for none): if the owner's last
--          read hold goes before then, a stand-in 'kept|<owner>', capped by the reader's lease,
--          keeps writers waiting; no release or extend matches it
--
-- Run twice, the second run finds the hold gone from the owner's list and changes nothing.
--
-- Returns holds left (>= 0), or -1 if this owner's read lease had already ended

local nowMs = now_ms()
local owner = digest(ARGV[1])
local reading = redis.call('ZSCORE', KEYS[1], owner)
if not reading or tonumber(reading) <= nowMs then
	local kept = redis.call('ZSCORE', KEYS[1], 'kept|' .. owner)
	if kept and tonumber(kept) > nowMs then
		-- Kept for its minimum hold after the owner's last read hold was released: this release
		-- ran before (the stand-in ends no later than the reader's lease did).
		return 0
	end
	return -1
end
local list = redis.call('HGET', KEYS[2], owner)
if not list_has(list, ARGV[2]) then
	-- Released before (this release ran twice): the owner's other holds stay.
	return list and list_count(list) or 0
end
list = list_without(list, ARGV[2])
local keep = tonumber(ARGV[3])
-- Where a kept stand-in ends: after the whole minimum hold (ends_after); with no minimum hold
-- left, now (an existing stand-in keeps its own end).
local keptEnd = (keep > 0) and ends_after(nowMs, keep) or nowMs
local holds = list_count(list)
if holds > 0 then
	redis.call('HSET', KEYS[2], owner, list)
	if keep > 0 then
		-- An inner hold's minimum hold outlives the outer holds, if it must.
		redis.call('ZADD', KEYS[1], 'GT', math.min(keptEnd, tonumber(reading)), 'kept|' .. owner)
	end
	return holds
end
redis.call('ZREM', KEYS[1], owner)
redis.call('HDEL', KEYS[2], owner)
if keep > 0 or redis.call('ZSCORE', KEYS[1], 'kept|' .. owner) then
	redis.call('ZADD', KEYS[1], 'GT', math.min(keptEnd, tonumber(reading)), 'kept|' .. owner)
	if tonumber(redis.call('ZSCORE', KEYS[1], 'kept|' .. owner)) > nowMs then
		-- Nobody removes the stand-in: the set goes when its last member ends. Writers are
		-- told, as a hint, and learn how long it stays.
		expire_at_latest(KEYS[1], nowMs, KEYS[2])
		redis.call('PUBLISH', KEYS[3], 'readers-left')
		return 0
	end
	redis.call('ZREM', KEYS[1], 'kept|' .. owner)
end
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. nowMs, '+inf')
if #live == 0 then
	redis.call('DEL', KEYS[1], KEYS[2])
	-- Only writers wait for this; readers ignore it.
	redis.call('PUBLISH', KEYS[3], 'readers-left')
	return 0
end
for _, member in ipairs(live) do
	if string.sub(member, 1, 5) ~= 'kept|' then
		-- A reader is left: its release tells the writers.
		return 0
	end
end
-- Only other owners' stand-ins are left. They end by expiry, which tells nobody: writers are
-- told now, as a hint, and learn from their next attempt how long the stand-ins stay; the set
-- expires when the last of them ends, which is what keyspace waiters hear.
expire_at_latest(KEYS[1], nowMs, KEYS[2])
redis.call('PUBLISH', KEYS[3], 'readers-left')
return 0
