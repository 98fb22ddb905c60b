-- Lengthen the lease of a hold of a lock to at least lease_ms from now, for its owner only. It
-- never shortens the lease, not even the sole hold's own (lengthen_lease in lib.lua).
--
-- KEYS: lock
-- ARGV: owner, token, hold, lease_ms
-- KEYS[1]  the lock hash
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  the hold's id
-- ARGV[4]  the lease in milliseconds it must have at least
--
-- Returns  1 extended, -1 the lock is gone, -2 someone else holds it now (or this hold was
--          released)

local held = redis.call('HMGET', KEYS[1], 'owner', 'token', hold_field(ARGV[3]))
local status = check_hold(held, digest(ARGV[1]), ARGV[2])
if status ~= 0 then
	return status
end
if not held[3] then
	return -2
end
lengthen_lease(KEYS[1], ARGV[4])
return 1
