-- Lengthen the lease of a permit to at least lease_ms from now, for its holder only; it never
-- moves the permit's end earlier (lengthen_lease in lib.lua says why).
--
-- KEYS: permits
-- ARGV: owner, hold, lease_ms
-- KEYS[1]  the permits sorted set
-- ARGV[1]  owner
-- ARGV[2]  the permit's hold id
-- ARGV[3]  the lease in milliseconds it must have at least
--
-- Returns 1 extended, -1 the permit's lease had already ended

local nowMs = now_ms()
local permit = digest(ARGV[1]) .. '|' .. ARGV[2]
local leaseEnd = redis.call('ZSCORE', KEYS[1], permit)
if not leaseEnd or tonumber(leaseEnd) <= nowMs then
	return -1
end
redis.call('ZADD', KEYS[1], 'XX', math.max(ends_after(nowMs, ARGV[3]), tonumber(leaseEnd)), permit)
expire_at_latest(KEYS[1], nowMs)
return 1
