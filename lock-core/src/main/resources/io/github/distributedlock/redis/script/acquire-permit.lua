-- Take one of N permits of a semaphore. Each permit has its own lease, so the permit of a
-- crashed holder comes back by itself.
--
-- KEYS: permits, fence
-- ARGV: owner, hold, lease_ms, permits, fence_idle_ms
-- KEYS[1]  the permits: a sorted set of permit ids ('<owner digest>|<hold>') scored by lease end (ms)
-- KEYS[2]  the fencing counter
-- ARGV[1]  owner
-- ARGV[2]  the hold: this acquisition's id, so that a second run finds its permit rather than taking a second one
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  number of permits
-- ARGV[5]  idle time in milliseconds after which the fencing counter may vanish
--
-- Returns {1, token} acquired (or this permit was taken by an earlier run of this attempt: the
-- token is then a new one); {0, 0, ms until the earliest permit's lease ends} all taken

local nowMs, nowUs = server_time()
local permit = digest(ARGV[1]) .. '|' .. ARGV[2]
drop_ended(KEYS[1], nowMs)
-- A permit of this very attempt is there when an earlier run took it (its reply was lost): the
-- caller counts the lease from before this run, so it gets a whole lease again (GT).
if not redis.call('ZSCORE', KEYS[1], permit) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
	local earliest = redis.call('ZRANGE', KEYS[1], '0', '0', 'WITHSCORES')
	return {0, 0, tonumber(earliest[2]) - nowMs}
end
redis.call('ZADD', KEYS[1], 'GT', ends_after(nowMs, ARGV[3]), permit)
expire_at_latest(KEYS[1], nowMs)
return {1, tonumber(next_token(KEYS[2], ARGV[5], nowUs))}
