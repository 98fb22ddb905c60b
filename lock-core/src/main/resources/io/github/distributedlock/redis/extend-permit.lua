-- Set a new lease on a permit, for its holder only.
--
-- KEYS: permits
-- ARGV: permit, lease_ms
--
-- KEYS[1]  the permits sorted set
-- ARGV[1]  permit id (owner|token)
-- ARGV[2]  new lease in milliseconds
--
-- Returns 1 extended, -1 the permit's lease had already ended

local nowMs = now_ms()
local leaseEnd = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('ZADD', KEYS[1], 'XX', ends_after(nowMs, ARGV[2]), ARGV[1])
expire_at_latest(KEYS[1], nowMs)
return 1
