-- Set a new lease on a read hold, for its owner only.
--
-- KEYS: readers, read_holds
-- ARGV: owner, lease_ms, [keep_longer]
--
-- KEYS[1]  the readers sorted set
-- KEYS[2]  the readers' hold counts
-- ARGV[1]  owner
-- ARGV[2]  new lease in milliseconds
-- ARGV[3]  '1' to keep a longer lease the owner's read hold already has (optional)
--
-- Returns 1 extended, -1 this owner's read lease had already ended

local nowMs = now_ms()
local reading = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not reading or tonumber(reading) <= nowMs then
	return -1
end
local leaseEnd = ends_after(nowMs, ARGV[2])
if ARGV[3] == '1' then
	leaseEnd = math.max(leaseEnd, tonumber(reading))
end
redis.call('ZADD', KEYS[1], 'XX', leaseEnd, ARGV[1])
expire_at_latest(KEYS[1], nowMs, KEYS[2])
return 1
