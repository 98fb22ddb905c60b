-- Take one of N permits of a semaphore. Each permit has its own lease, so the permit of a
-- crashed holder comes back by itself.
--
-- KEYS: permits, fence
-- ARGV: owner, lease_ms, permits, fence_idle_ms
--
-- KEYS[1]  the permits: a sorted set of permit ids (owner|token) scored by lease end (ms)
-- KEYS[2]  the fencing counter, which also makes permit ids unique
-- ARGV[1]  owner
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  number of permits
-- ARGV[4]  idle time in milliseconds after which the fencing counter may vanish
--
-- Returns {1, token} acquired; {0, 0, ms until the earliest permit's lease ends} all taken

local nowMs, nowUs = server_time()
drop_ended(KEYS[1], nowMs)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
	local earliest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
	return {0, 0, tonumber(earliest[2]) - nowMs}
end

local token = next_token(KEYS[2], ARGV[4], nowUs)
redis.call('ZADD', KEYS[1], ends_after(nowMs, ARGV[2]), ARGV[1] .. '|' .. token)
expire_at_latest(KEYS[1], nowMs)
return {1, tonumber(token)}
