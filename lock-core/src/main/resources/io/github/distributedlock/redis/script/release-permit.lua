-- Give a permit back and wake a waiter.
--
-- KEYS: permits, channel
-- ARGV: owner, hold, keep_ms
-- KEYS[1]  the permits sorted set
-- KEYS[2]  the semaphore's release channel
-- ARGV[1]  owner
-- ARGV[2]  the permit's hold id
-- ARGV[3]  what is left of the hold's minimum hold, in ms ('0' for none): the permit stays taken
--          until then, capped by its lease
--
-- Returns 0 released, -1 the permit's lease had already ended

local nowMs = now_ms()
local permit = digest(ARGV[1]) .. '|' .. ARGV[2]
local leaseEnd = redis.call('ZSCORE', KEYS[1], permit)
local keep = tonumber(ARGV[3])
if not leaseEnd and redis.call('ZSCORE', KEYS[1], 'kept|' .. permit) then
	-- Kept for its minimum hold: this release ran before (its reply was lost).
	return 0
end
if keep > 0 and leaseEnd and tonumber(leaseEnd) > nowMs then
	-- A stand-in that no extend or release matches keeps the permit taken (for the whole
	-- minimum hold: ends_after), capped by the permit's lease.
	redis.call('ZREM', KEYS[1], permit)
	redis.call('ZADD', KEYS[1], math.min(ends_after(nowMs, keep), tonumber(leaseEnd)), 'kept|' .. permit)
	expire_at_latest(KEYS[1], nowMs)
	redis.call('PUBLISH', KEYS[2], 'permit')
	return 0
end
redis.call('ZREM', KEYS[1], permit)
-- Drop permits whose leases ended too, so the set (and its key) lasts only as long as a live permit.
drop_ended(KEYS[1], nowMs)
expire_at_latest(KEYS[1], nowMs)
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('PUBLISH', KEYS[2], 'permit')
return 0
