-- Set a new lease on a read hold, for its owner only. The owner's sole read hold sets its end
-- outright, earlier too; with other holds of the owner the end is only ever moved later, since
-- they count on the lease they were given.
--
-- KEYS: readers, read_holds
-- ARGV: owner, hold, lease_ms
--
-- KEYS[1]  the readers sorted set
-- KEYS[2]  the readers' holds: reader owner (digest) -> ',<hold>,<hold>,'
-- ARGV[1]  owner
-- ARGV[2]  the hold's id
-- ARGV[3]  new lease in milliseconds
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
local leaseEnd = ends_after(nowMs, ARGV[3])
if list_count(list) > 1 then
	leaseEnd = math.max(leaseEnd, tonumber(reading))
end
redis.call('ZADD', KEYS[1], 'XX', leaseEnd, owner)
expire_at_latest(KEYS[1], nowMs, KEYS[2])
return 1
