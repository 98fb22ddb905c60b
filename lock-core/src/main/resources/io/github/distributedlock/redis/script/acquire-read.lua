-- Take a read lock: shared with other readers, excluded by a writer (the lock's owner).
--
-- KEYS: lock, fence, readers, read_holds, writer_intent, requests, channel
-- ARGV: owner, hold, lease_ms, reentrant, fence_idle_ms, request, request_ttl_ms
-- KEYS[1]  the lock hash: its owner is the writer
-- KEYS[2]  the fencing counter
-- KEYS[3]  the readers: a sorted set of reader owners (digests) scored by lease end (ms)
-- KEYS[4]  the readers' holds: a hash of reader owner (digest) -> its holds, ',<hold>,<hold>,'
-- KEYS[5]  the writer intent: while it exists, only current readers and the writer may read
-- KEYS[6]  the requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- KEYS[7]  the lock's release channel
-- ARGV[1]  owner
-- ARGV[2]  the hold: this acquisition's id, kept in the owner's list in KEYS[4]
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  '1' if the owner may take it again, '0' if that is a self-deadlock
-- ARGV[5]  idle time in milliseconds after which the fencing counter may vanish
-- ARGV[6]  the caller's request, or '' for none: filed (keeping its place) when blocked,
--          withdrawn when the read lock is ours; a lock reserved for it is free for us
-- ARGV[7]  how long the requests set lives after the last filing, in ms
--
-- Returns {1, token} acquired (or this hold was taken by an earlier run of this attempt: the
-- token is then a new one); {0, holder token, ttl} blocked; {-1, 0, ttl} self-deadlock

local nowMs, nowUs = server_time()
local owner = digest(ARGV[1])

local function file()
	if ARGV[6] ~= '' then
		file_request(KEYS[6], ARGV[6], nowMs, ARGV[7])
	end
end

local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'reserved', 'queued')
local reservedForUs = held[1] == '' and ARGV[6] ~= '' and held[3] == ARGV[6]
if held[1] and held[1] ~= owner and not reservedForUs then
	-- A writer holds it (or it is reserved or kept): its release must tell us.
	file()
	mark_queued(KEYS[1], held[4])
	return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
end
drop_ended(KEYS[3], nowMs, nil, KEYS[4])

local reading = redis.call('ZSCORE', KEYS[3], owner)
local holds = reading and redis.call('HGET', KEYS[4], owner)
if list_has(holds, ARGV[2]) then
	-- An earlier run of this very attempt took it (its reply was lost). The caller counts the
	-- lease from before this run: it must cover that.
	redis.call('ZADD', KEYS[3], 'GT', ends_after(nowMs, ARGV[3]), owner)
	expire_at_latest(KEYS[3], nowMs, KEYS[4])
	if ARGV[6] ~= '' then
		redis.call('ZREM', KEYS[6], ARGV[6])
	end
	return {1, tonumber(next_token(KEYS[2], ARGV[5], nowUs))}
end
if reading and ARGV[4] ~= '1' then
	return {-1, 0, tonumber(reading) - nowMs}
end
if not reading and not held[1] then
	local intent = redis.call('GET', KEYS[5])
	if intent and intent ~= owner then
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
if ARGV[6] ~= '' then
	redis.call('ZREM', KEYS[6], ARGV[6])
end

local token = next_token(KEYS[2], ARGV[5], nowUs)
redis.call('HSET', KEYS[4], owner, (holds or ',') .. ARGV[2] .. ',')
redis.call('ZADD', KEYS[3], 'GT', ends_after(nowMs, ARGV[3]), owner)
expire_at_latest(KEYS[3], nowMs, KEYS[4])
return {1, tonumber(token)}
