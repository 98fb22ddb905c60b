-- Set a new lease on a lock, for its owner only.
--
-- KEYS: lock
-- ARGV: owner, token, lease_ms, [keep_longer]
--
-- KEYS[1]  the lock hash
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  new lease in milliseconds
-- ARGV[4]  '1' to keep a longer lease the lock already has (optional)
--
-- Returns  1 extended, -1 the lock is gone, -2 someone else holds it now

local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
local status = check_hold(held, ARGV[1], ARGV[2])
if status ~= 0 then
	return status
end
local lease = tonumber(ARGV[3])
if ARGV[4] == '1' then
	lease = math.max(lease, redis.call('PTTL', KEYS[1]))
end
redis.call('PEXPIRE', KEYS[1], lease)
return 1
