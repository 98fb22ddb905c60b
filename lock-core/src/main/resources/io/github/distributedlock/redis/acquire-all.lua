-- Take several locks at once, all or nothing. On a Cluster all keys must share one hash
-- slot; the engine only sends this script when they do (standalone and Sentinel: always).
--
-- KEYS: (lock, fence, readers, requests, channel)...
-- ARGV: owner, reentrant, fence_idle_ms, request, request_ttl_ms, (lease_ms)...
--
-- KEYS[5i-4]  lock i
-- KEYS[5i-3]  its fencing counter
-- KEYS[5i-2]  its readers (a sorted set scored by lease end): live readers block the lock
-- KEYS[5i-1]  its requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- KEYS[5i]    its release channel
-- ARGV[1]     owner
-- ARGV[2]     '1' if the owner may take a lock again, '0' if that is a self-deadlock
-- ARGV[3]     idle time in milliseconds after which a fencing counter may vanish
-- ARGV[4]     the caller's request, or '' for none: filed (keeping its place) with the lock that
--             blocks, withdrawn from every lock when all are ours; a lock reserved for it is
--             free for us
-- ARGV[5]     how long a requests set lives after the last filing, in ms
-- ARGV[5+i]   lease of lock i in milliseconds
--
-- Returns {1, token 1, token 2, ...}   all acquired
--         {0, i, holder token, pttl}    lock i is held by someone else; nothing was taken
--         {-1, i, token, pttl}          lock i is held by this owner and not reentrant

local count = #KEYS / 5
local nowMs, nowUs = server_time()

-- Nothing is taken. Lock i's hash, if it blocks (held: its HMGET), is marked so that its release
-- tells the waiters (mark_queued in lib.lua). The request waits in the line of the lock that
-- blocks, and only there (the caller listens to that lock alone); a lock reserved for it is
-- freed, and its waiters woken.
local function blocked(i, reply, held)
	if held then
		mark_queued(KEYS[5 * i - 4], held[4])
	end
	if ARGV[4] == '' then
		return reply
	end
	for j = 1, count do
		if j == i then
			file_request(KEYS[5 * j - 1], ARGV[4], nowMs, ARGV[5])
		else
			redis.call('ZREM', KEYS[5 * j - 1], ARGV[4])
			local held = redis.call('HMGET', KEYS[5 * j - 4], 'owner', 'token', 'reserved')
			if held[1] == '' and held[3] == ARGV[4] then
				redis.call('DEL', KEYS[5 * j - 4])
				redis.call('PUBLISH', KEYS[5 * j], held[2] or '0')
			end
		end
	end
	return reply
end

for i = 1, count do
	local lock = KEYS[5 * i - 4]
	local held = redis.call('HMGET', lock, 'owner', 'token', 'reserved', 'queued')
	if held[1] == '' and ARGV[4] ~= '' and held[3] == ARGV[4] then
		-- Reserved for us: as good as free.
	elseif held[1] then
		if held[1] ~= ARGV[1] then
			return blocked(i, {0, i, tonumber(held[2]), redis.call('PTTL', lock)}, held)
		end
		if ARGV[2] ~= '1' then
			return {-1, i, tonumber(held[2]), redis.call('PTTL', lock)}
		end
	else
		local latest = redis.call('ZRANGEBYSCORE', KEYS[5 * i - 2], '(' .. nowMs, '+inf', 'WITHSCORES')
		if #latest > 0 then
			return blocked(i, {0, i, 0, tonumber(latest[#latest]) - nowMs}, nil)
		end
	end
end

local tokens = {1}
for i = 1, count do
	local lock = KEYS[5 * i - 4]
	local lease = ARGV[5 + i]
	local owner = redis.call('HGET', lock, 'owner')
	if owner and owner ~= '' then
		redis.call('HINCRBY', lock, 'holds', 1)
		if redis.call('PTTL', lock) < tonumber(lease) then
			redis.call('PEXPIRE', lock, lease)
		end
		tokens[i + 1] = tonumber(redis.call('HGET', lock, 'token'))
	else
		local token = next_token(KEYS[5 * i - 3], ARGV[3], nowUs)
		if owner then
			redis.call('HDEL', lock, 'reserved')
		end
		-- Requests may be waiting for it (the line is not looked at here): the release will look.
		redis.call('HSET', lock, 'owner', ARGV[1], 'holds', 1, 'token', token, 'queued', 1)
		redis.call('PEXPIRE', lock, lease)
		tokens[i + 1] = tonumber(token)
	end
	if ARGV[4] ~= '' then
		redis.call('ZREM', KEYS[5 * i - 1], ARGV[4])
	end
end
return tokens
