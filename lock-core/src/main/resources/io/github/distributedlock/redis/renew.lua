-- Renew the leases of many holds in one round trip (the watchdog's batch). All keys must
-- be in one hash slot when Redis is a Cluster; the watchdog groups them so.
--
-- KEYS: (lock)...
-- ARGV: (owner, token, lease_ms)...
--
-- KEYS[i]          a lock hash
-- ARGV[3i-2..3i]   its owner, the hold's fencing token, and the new lease in milliseconds
--
-- Returns a list with, for each lock: 1 renewed, -1 the lock is gone, -2 someone else holds it

local results = {}
for i, key in ipairs(KEYS) do
	local owner = ARGV[3 * i - 2]
	local held = redis.call('HMGET', key, 'owner', 'token')
	local status = check_hold(held, owner, ARGV[3 * i - 1])
	if status == 0 then
		redis.call('PEXPIRE', key, ARGV[3 * i])
		results[i] = 1
	else
		results[i] = status
	end
end
return results
