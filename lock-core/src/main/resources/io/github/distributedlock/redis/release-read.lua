-- Release one read hold; when the last reader leaves, wake a waiting writer.
--
-- KEYS: readers, read_holds, channel
-- ARGV: owner
--
-- KEYS[1]  the readers sorted set
-- KEYS[2]  the readers' hold counts
-- KEYS[3]  the lock's release channel
-- ARGV[1]  owner
--
-- Returns holds left (>= 0), or -1 if this owner's read lease had already ended

local nowMs = now_ms()
local reading = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not reading or tonumber(reading) <= nowMs then
	return -1
end
local holds = redis.call('HINCRBY', KEYS[2], ARGV[1], -1)
if holds > 0 then
	return holds
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('ZCOUNT', KEYS[1], '(' .. nowMs, '+inf') == 0 then
	redis.call('DEL', KEYS[1], KEYS[2])
	-- Only writers wait for this; readers ignore it.
	redis.call('PUBLISH', KEYS[3], 'readers-left')
end
return 0
