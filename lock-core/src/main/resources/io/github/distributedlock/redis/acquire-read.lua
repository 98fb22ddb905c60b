-- Take a read lock: shared with other readers, excluded by a writer (the lock's owner).
--
-- KEYS: lock, fence, readers, read_holds, writer_intent, requests, channel
-- ARGV: owner, lease_ms, reentrant, fence_idle_ms, request, request_ttl_ms
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

local nowMs, nowUs = server_time()

-- File the caller's request, if it carries one.
local function file()
	if ARGV[5] ~= '' then
		file_request(KEYS[6], ARGV[5], nowMs, ARGV[6])
	end
end

local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'reserved', 'queued')
local reservedForUs = held[1] == '' and ARGV[5] ~= '' and held[3] == ARGV[5]
if held[1] and held[1] ~= ARGV[1] and not reservedForUs then
	-- A writer holds it (or it is reserved or kept): its release must tell us.
	file()
	mark_queued(KEYS[1], held[4])
	return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
end
drop_ended(KEYS[3], nowMs, nil, KEYS[4])

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

local token = next_token(KEYS[2], ARGV[4], nowUs)
redis.call('HINCRBY', KEYS[4], ARGV[1], 1)
redis.call('ZADD', KEYS[3], 'GT', ends_after(nowMs, ARGV[2]), ARGV[1])
expire_at_latest(KEYS[3], nowMs, KEYS[4])
return {1, tonumber(token)}
