-- Renew the leases of many holds in one round trip (the watchdog's batch). All keys must
-- be in one hash slot when Redis is a Cluster; the watchdog groups them so.
--
-- KEYS: (lock)...
-- ARGV: (owner, token, hold, lease_ms)...
-- KEYS[i]          a lock hash
-- ARGV[4i-3..4i]   its owner, the hold's fencing token, the hold's id, and the new lease in ms
--
-- A renewal only ever lengthens the lease (lengthen_lease in lib.lua), and one that runs again
-- after its hold was released renews nothing.
--
-- Returns a list with, for each lock: 1 renewed, -1 the lock is gone, -2 someone else holds it
-- (or this hold was released)

local results = {}
for i, key in ipairs(KEYS) do
	local at = 4 * i
	local held = redis.call('HMGET', key, 'owner', 'token', hold_field(ARGV[at - 1]))
	local status = check_hold(held, digest(ARGV[at - 3]), ARGV[at - 2])
	if status == 0 and not held[3] then
		status = -2
	end
	if status == 0 then
		lengthen_lease(key, ARGV[at])
		results[i] = 1
	else
		results[i] = status
	end
end
return results
