-- Give a permit back and wake a waiter.
--
-- KEYS: permits, channel
-- ARGV: permit
--
-- KEYS[1]  the permits sorted set
-- KEYS[2]  the semaphore's release channel
-- ARGV[1]  permit id (owner|token)
--
-- Returns 0 released, -1 the permit's lease had already ended

local nowMs = now_ms()
local leaseEnd = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
-- Drop permits whose leases ended too, so the set (and its key) lasts only as long as a live permit.
drop_ended(KEYS[1], nowMs)
expire_at_latest(KEYS[1], nowMs)
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('PUBLISH', KEYS[2], 'permit')
return 0
