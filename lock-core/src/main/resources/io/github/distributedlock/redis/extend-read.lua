-- Set a new lease on a read hold, for its owner only.
--
-- KEYS[1]  the readers sorted set
-- KEYS[2]  the readers' hold counts
-- ARGV[1]  owner
-- ARGV[2]  new lease in milliseconds
-- ARGV[3]  '1' to keep a longer lease the owner's read hold already has (optional)
--
-- Returns 1 extended, -1 this owner's read lease had already ended

local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local reading = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not reading or tonumber(reading) <= nowMs then
	return -1
end
local leaseEnd = nowMs + tonumber(ARGV[2])
if ARGV[3] == '1' then
	leaseEnd = math.max(leaseEnd, tonumber(reading))
end
redis.call('ZADD', KEYS[1], 'XX', leaseEnd, ARGV[1])
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local keep = tonumber(latest[2]) - nowMs
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[2], keep)
return 1
