-- Give a permit back and wake a waiter.
--
-- KEYS[1]  the permits sorted set
-- KEYS[2]  the semaphore's release channel
-- ARGV[1]  permit id (owner|token)
--
-- Returns 0 released, -1 the permit's lease had already ended

local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local leaseEnd = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('PUBLISH', KEYS[2], 'permit')
return 0
