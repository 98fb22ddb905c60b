-- Take several locks at once, all or nothing. On a Cluster all keys must share one hash
-- slot; the engine only sends this script when they do (standalone and Sentinel: always).
--
-- KEYS[3i-2]  lock i
-- KEYS[3i-1]  its fencing counter
-- KEYS[3i]    its readers (a sorted set scored by lease end): live readers block the lock
-- ARGV[1]     owner
-- ARGV[2]     '1' if the owner may take a lock again, '0' if that is a self-deadlock
-- ARGV[3]     idle time in milliseconds after which a fencing counter may vanish
-- ARGV[3+i]   lease of lock i in milliseconds
--
-- Returns {1, token 1, token 2, ...}   all acquired
--         {0, i, holder token, pttl}    lock i is held by someone else; nothing was taken
--         {-1, i, token, pttl}          lock i is held by this owner and not reentrant

local count = #KEYS / 3
local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
for i = 1, count do
	local held = redis.call('HMGET', KEYS[3 * i - 2], 'owner', 'token')
	if held[1] then
		if held[1] ~= ARGV[1] then
			return {0, i, tonumber(held[2]), redis.call('PTTL', KEYS[3 * i - 2])}
		end
		if ARGV[2] ~= '1' then
			return {-1, i, tonumber(held[2]), redis.call('PTTL', KEYS[3 * i - 2])}
		end
	else
		local latest = redis.call('ZRANGEBYSCORE', KEYS[3 * i], '(' .. nowMs, '+inf', 'WITHSCORES')
		if #latest > 0 then
			return {0, i, 0, tonumber(latest[#latest]) - nowMs}
		end
	end
end

local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local tokens = {1}
for i = 1, count do
	local lock = KEYS[3 * i - 2]
	local lease = ARGV[3 + i]
	local owner = redis.call('HGET', lock, 'owner')
	if owner then
		redis.call('HINCRBY', lock, 'holds', 1)
		if redis.call('PTTL', lock) < tonumber(lease) then
			redis.call('PEXPIRE', lock, lease)
		end
		tokens[i + 1] = tonumber(redis.call('HGET', lock, 'token'))
	else
		local last = tonumber(redis.call('GET', KEYS[3 * i - 1]) or '0')
		local token = string.format('%.0f', math.max(last + 1, now))
		redis.call('SET', KEYS[3 * i - 1], token, 'PX', ARGV[3])
		redis.call('HSET', lock, 'owner', ARGV[1], 'holds', 1, 'token', token)
		redis.call('PEXPIRE', lock, lease)
		tokens[i + 1] = tonumber(token)
	end
end
return tokens
