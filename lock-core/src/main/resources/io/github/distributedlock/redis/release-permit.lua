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
-- Drop permits whose leases ended too, so the set (and its key) lasts only as long as a live permit.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if latest[2] then
	redis.call('PEXPIRE', KEYS[1], tonumber(latest[2]) - nowMs)
end
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('PUBLISH', KEYS[2], 'permit')
return 0
