-- Whether a member of a lease-scored sorted set (a reader, or a permit) still holds it.
--
-- KEYS[1]  the sorted set, scored by lease end (ms)
-- ARGV[1]  the member
--
-- Returns 1 held, 0 not held (absent, or its lease ended)

local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local leaseEnd = redis.call('ZSCORE', KEYS[1], ARGV[1])
if leaseEnd and tonumber(leaseEnd) > nowMs then
	return 1
end
return 0
