-- Take a read lock: shared with other readers, excluded by a writer (the lock's owner).
--
-- KEYS[1]  the lock hash: its owner is the writer
-- KEYS[2]  the fencing counter
-- KEYS[3]  the readers: a sorted set of reader owners scored by lease end (ms)
-- KEYS[4]  the readers' hold counts: a hash of reader owner -> holds
-- KEYS[5]  the writer intent: while it exists, only current readers and the writer may read
-- KEYS[6]  the requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- KEYS[7]  the lock's release channel
-- ARGV[1]  owner
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  '1' if the owner may take it again, '0' if that is a self-deadlock
-- ARGV[4]  idle time in milliseconds after which the fencing counter may vanish
-- ARGV[5]  the caller's request, or '' for none: filed (keeping its place) when blocked,
--          withdrawn when the read lock is ours; a lock reserved for it is free for us
-- ARGV[6]  how long the requests set lives after the last filing, in ms
--
-- Returns {1, token} acquired; {0, holder token, ttl} blocked; {-1, 0, ttl} self-deadlock

local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function file()
	if ARGV[5] ~= '' then
		redis.call('ZADD', KEYS[6], 'NX', nowMs, ARGV[5])
		redis.call('PEXPIRE', KEYS[6], ARGV[6])
	end
end

local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'reserved')
local reservedForUs = held[1] == '' and ARGV[5] ~= '' and held[3] == ARGV[5]
if held[1] and held[1] ~= ARGV[1] and not reservedForUs then
	file()
	return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', nowMs)
for _, reader in ipairs(expired) do
	redis.call('ZREM', KEYS[3], reader)
	redis.call('HDEL', KEYS[4], reader)
end

local reading = redis.call('ZSCORE', KEYS[3], ARGV[1])
if reading and ARGV[3] ~= '1' then
	return {-1, 0, tonumber(reading) - nowMs}
end
if not reading and not held[1] then
	local intent = redis.call('GET', KEYS[5])
	if intent and intent ~= ARGV[1] then
		-- A writer is waiting: don't let a stream of new readers starve it.
		file()
		return {0, 0, redis.call('PTTL', KEYS[5])}
	end
end
if reservedForUs then
	-- The lock was reserved for this reader: it is free of writers now, and the other
	-- waiters are told so (readers join, writers wait for the readers).
	redis.call('DEL', KEYS[1])
	redis.call('PUBLISH', KEYS[7], held[2])
end
if ARGV[5] ~= '' then
	redis.call('ZREM', KEYS[6], ARGV[5])
end

local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local token = string.format('%.0f', math.max(last + 1, now))
redis.call('SET', KEYS[2], token, 'PX', ARGV[4])
redis.call('HINCRBY', KEYS[4], ARGV[1], 1)
redis.call('ZADD', KEYS[3], 'GT', nowMs + tonumber(ARGV[2]), ARGV[1])
local latest = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
local keep = tonumber(latest[2]) - nowMs
redis.call('PEXPIRE', KEYS[3], keep)
redis.call('PEXPIRE', KEYS[4], keep)
return {1, tonumber(token)}
