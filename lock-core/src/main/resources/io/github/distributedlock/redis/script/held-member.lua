-- Whether an owner's member of a lease-scored sorted set (a reader, or a permit) still holds it.
--
-- KEYS: members
-- ARGV: owner, suffix
-- KEYS[1]  the sorted set, scored by lease end (ms)
-- ARGV[1]  the owner
-- ARGV[2]  what follows the owner's digest in the member: '' for a reader, '|<hold>' for a permit
--
-- Returns 1 held, 0 not held (absent, or its lease ended)

local nowMs = now_ms()
local leaseEnd = redis.call('ZSCORE', KEYS[1], digest(ARGV[1]) .. ARGV[2])
if leaseEnd and tonumber(leaseEnd) > nowMs then
	return 1
end
return 0
