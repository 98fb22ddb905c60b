-- Take one of N permits of a semaphore. Each permit has its own lease, so the permit of a
-- crashed holder comes back by itself.
--
-- KEYS[1]  the permits: a sorted set of permit ids (owner|token) scored by lease end (ms)
-- KEYS[2]  the fencing counter, which also makes permit ids unique
-- ARGV[1]  owner
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  number of permits
-- ARGV[4]  idle time in milliseconds after which the fencing counter may vanish
--
-- Returns {1, token} acquired; {0, 0, ms until the earliest permit's lease ends} all taken

local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
	local earliest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
	return {0, 0, tonumber(earliest[2]) - nowMs}
end

local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local token = string.format('%.0f', math.max(last + 1, now))
redis.call('SET', KEYS[2], token, 'PX', ARGV[4])
redis.call('ZADD', KEYS[1], nowMs + tonumber(ARGV[2]), ARGV[1] .. '|' .. token)
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], tonumber(latest[2]) - nowMs)
return {1, tonumber(token)}
