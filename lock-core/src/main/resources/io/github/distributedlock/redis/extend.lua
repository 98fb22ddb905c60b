-- Set a new lease on a hold of a lock, for its owner only. The sole hold of the lock sets the
-- lease outright, shorter too; with other holds it is only ever lengthened (set_lease in lib.lua).
--
-- KEYS: lock
-- ARGV: owner, token, hold, lease_ms
--
-- KEYS[1]  the lock hash
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  the hold's id
-- ARGV[4]  new lease in milliseconds
--
-- Returns  1 extended, -1 the lock is gone, -2 someone else holds it now (or this hold was
--          released)

local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'holds', hold_field(ARGV[3]))
local status = check_hold(held, digest(ARGV[1]), ARGV[2])
if status ~= 0 then
	return status
end
if not held[4] then
	return -2
end
set_lease(KEYS[1], held[3], ARGV[4])
return 1
