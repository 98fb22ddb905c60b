-- Take several locks at once, all or nothing. On a Cluster all keys must share one hash
-- slot; the engine only sends this script when they do (standalone and Sentinel: always).
--
-- KEYS: (lock, fence, readers, requests, channel)...
-- ARGV: owner, hold, reentrant, fence_idle_ms, request, request_ttl_ms, (lease_ms)...
-- KEYS[5i-4]  lock i
-- KEYS[5i-3]  its fencing counter
-- KEYS[5i-2]  its readers (a sorted set scored by lease end): live readers block the lock
-- KEYS[5i-1]  its requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- KEYS[5i]    its release channel
-- ARGV[1]     owner
-- ARGV[2]     the hold: this acquisition's id (its field '#<hold>' in each lock)
-- ARGV[3]     '1' if the owner may take a lock again, '0' if that is a self-deadlock
-- ARGV[4]     idle time in milliseconds after which a fencing counter may vanish
-- ARGV[5]     the caller's request, or '' for none: filed with the lock that blocks, withdrawn
--             from every lock when all are ours; a lock reserved for it is free for us
-- ARGV[6]     how long a requests set lives after the last filing, in ms
-- ARGV[6+i]   lease of lock i in milliseconds
--
-- Returns {1, token 1, token 2, ...}   all acquired (or taken by an earlier run of this attempt)
--         {0, i, holder token, pttl}    lock i is held by someone else; nothing was taken
--         {-1, i, token, pttl}          lock i is held by this owner and not reentrant

local count = #KEYS / 5
local nowMs, nowUs = server_time()
local owner = digest(ARGV[1])
local hold = hold_field(ARGV[2])

-- Lock i blocks, and nothing is taken. Its hash, if any (held: its HMGET), is marked
-- (mark_queued in lib.lua). The request waits only in lock i's line, the one the caller listens
-- to; a lock reserved for it elsewhere is freed, and its waiters woken.
local function blocked(i, reply, held)
	if held then
		mark_queued(KEYS[5 * i - 4], held[4])
	end
	-- All or nothing: an earlier run of this attempt (its reply lost) may have taken the other
	-- locks. Its holds go as their release would: a lock it alone held is kept for a minimum
	-- hold recorded there (keep_taken) or freed, and its waiters are told.
	for j = 1, count do
		if j ~= i then
			local mine = redis.call('HMGET', KEYS[5 * j - 4], 'owner', 'token', 'holds', hold, 'kept')
			if mine[1] == owner and mine[4] then
				if tonumber(mine[3]) <= 1 then
					if keep_taken(KEYS[5 * j - 4], 0, mine[5]) then
						redis.call('HDEL', KEYS[5 * j - 4], hold)
					else
						redis.call('DEL', KEYS[5 * j - 4])
					end
					redis.call('PUBLISH', KEYS[5 * j], mine[2])
				else
					redis.call('HDEL', KEYS[5 * j - 4], hold)
					redis.call('HINCRBY', KEYS[5 * j - 4], 'holds', '-1')
				end
			end
		end
	end
	if ARGV[5] == '' then
		return reply
	end
	for j = 1, count do
		if j == i then
			file_request(KEYS[5 * j - 1], ARGV[5], nowMs, ARGV[6])
		else
			redis.call('ZREM', KEYS[5 * j - 1], ARGV[5])
			local held = redis.call('HMGET', KEYS[5 * j - 4], 'owner', 'token', 'reserved')
			if held[1] == '' and held[3] == ARGV[5] then
				redis.call('DEL', KEYS[5 * j - 4])
				redis.call('PUBLISH', KEYS[5 * j], held[2] or '0')
			end
		end
	end
	return reply
end

for i = 1, count do
	local lock = KEYS[5 * i - 4]
	local held = redis.call('HMGET', lock, 'owner', 'token', 'reserved', 'queued', hold)
	if held[1] == '' and ARGV[5] ~= '' and held[3] == ARGV[5] then
		-- Reserved for us: as good as free.
	elseif held[1] then
		if held[1] ~= owner then
			return blocked(i, {0, i, tonumber(held[2]), redis.call('PTTL', lock)}, held)
		end
		-- Ours: a re-entry, unless an earlier run of this very attempt took it.
		if ARGV[3] ~= '1' and not held[5] then
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
	local lease = ARGV[6 + i]
	local held = redis.call('HMGET', lock, 'owner', 'token')
	if held[1] and held[1] ~= '' then
		if redis.call('HSETNX', lock, hold, '1') == 1 then
			redis.call('HINCRBY', lock, 'holds', '1')
		end
		-- Another hold never shortens the lease the outer hold relies on, and a hold an earlier
		-- run of this attempt took must cover the lease the caller counts from before this run.
		lengthen_lease(lock, lease)
		tokens[i + 1] = tonumber(held[2])
	else
		local token = next_token(KEYS[5 * i - 3], ARGV[4], nowUs)
		if held[1] then
			redis.call('HDEL', lock, 'reserved')
		end
		-- Requests may be waiting for it (the line is not looked at here): the release will look.
		redis.call('HSET', lock, 'owner', owner, 'holds', '1', 'token', token, hold, '1', 'queued', '1')
		redis.call('PEXPIRE', lock, lease)
		tokens[i + 1] = tonumber(token)
	end
	if ARGV[5] ~= '' then
		redis.call('ZREM', KEYS[5 * i - 1], ARGV[5])
	end
end
return tokens
