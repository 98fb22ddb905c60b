-- Set a new lease on a permit, for its holder only.
--
-- KEYS: permits
-- ARGV: owner, hold, lease_ms
--
-- KEYS[1]  the permits sorted set
-- ARGV[1]  owner
-- ARGV[2]  the permit's hold id
-- ARGV[3]  new lease in milliseconds
--
-- Returns 1 extended, -1 the permit's lease had already ended

local nowMs = now_ms()
local permit = digest(ARGV[1]) .. '|' .. ARGV[2]
local leaseEnd = redis.call('ZSCORE', KEYS[1], permit)
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('ZADD', KEYS[1], 'XX', ends_after(nowMs, ARGV[3]), permit)
expire_at_latest(KEYS[1], nowMs)
return 1
