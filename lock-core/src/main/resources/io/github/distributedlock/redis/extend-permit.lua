-- Set a new lease on a permit, for its holder only.
--
-- KEYS[1]  the permits sorted set
-- ARGV[1]  permit id (owner|token)
-- ARGV[2]  new lease in milliseconds
--
-- Returns 1 extended, -1 the permit's lease had already ended

local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local leaseEnd = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('ZADD', KEYS[1], 'XX', nowMs + tonumber(ARGV[2]), ARGV[1])
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], tonumber(latest[2]) - nowMs)
return 1
