-- Lengthen the lease of a read hold to at least lease_ms from now, for its owner only. The
-- owner's read end only ever moves later (lengthen_lease in lib.lua says why).
--
-- KEYS: readers, read_holds
-- ARGV: owner, hold, lease_ms
-- KEYS[1]  the readers sorted set
-- KEYS[2]  the readers' holds: reader owner (digest) -> ',<hold>,<hold>,'
-- ARGV[1]  owner
-- ARGV[2]  the hold's id
-- ARGV[3]  the lease in milliseconds it must have at least
--
-- Returns 1 extended, -1 this owner's read lease had already ended (or this hold was released)

local nowMs = now_ms()
local owner = digest(ARGV[1])
local reading = redis.call('ZSCORE', KEYS[1], owner)
if not reading or tonumber(reading) <= nowMs then
	return -1
end
local list = redis.call('HGET', KEYS[2], owner)
if not list_has(list, ARGV[2]) then
	return -1
end
local leaseEnd = math.max(ends_after(nowMs, ARGV[3]), tonumber(reading))
redis.call('ZADD', KEYS[1], 'XX', leaseEnd, owner)
expire_at_latest(KEYS[1], nowMs, KEYS[2])
return 1
