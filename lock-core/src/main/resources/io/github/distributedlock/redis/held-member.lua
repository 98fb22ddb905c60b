-- Whether a member of a lease-scored sorted set (a reader, or a permit) still holds it.
--
-- KEYS: members
-- ARGV: member
--
-- KEYS[1]  the sorted set, scored by lease end (ms)
-- ARGV[1]  the member
--
-- Returns 1 held, 0 not held (absent, or its lease ended)

local nowMs = now_ms()
local leaseEnd = redis.call('ZSCORE', KEYS[1], ARGV[1])
if leaseEnd and tonumber(leaseEnd) > nowMs then
	return 1
end
return 0
