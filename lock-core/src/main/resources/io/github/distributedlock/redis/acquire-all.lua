-- Take several locks at once, all or nothing. On a Cluster all keys must share one hash
-- slot; the engine only sends this script when they do (standalone and Sentinel: always).
--
-- KEYS[2i-1]  lock i
-- KEYS[2i]    its fencing counter
-- ARGV[1]     owner
-- ARGV[2]     '1' if the owner may take a lock again, '0' if that is a self-deadlock
-- ARGV[3]     idle time in milliseconds after which a fencing counter may vanish
-- ARGV[3+i]   lease of lock i in milliseconds
--
-- Returns {1, token 1, token 2, ...}   all acquired
--         {0, i, holder token, pttl}    lock i is held by someone else; nothing was taken
--         {-1, i, token, pttl}          lock i is held by this owner and not reentrant

local count = #KEYS / 2
for i = 1, count do
	local held = redis.call('HMGET', KEYS[2 * i - 1], 'owner', 'token')
	if held[1] then
		if held[1] ~= ARGV[1] then
			return {0, i, tonumber(held[2]), redis.call('PTTL', KEYS[2 * i - 1])}
		end
		if ARGV[2] ~= '1' then
			return {-1, i, tonumber(held[2]), redis.call('PTTL', KEYS[2 * i - 1])}
		end
	end
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local tokens = {1}
for i = 1, count do
	local lock = KEYS[2 * i - 1]
	local lease = ARGV[3 + i]
	local owner = redis.call('HGET', lock, 'owner')
	if owner then
		redis.call('HINCRBY', lock, 'holds', 1)
		if redis.call('PTTL', lock) < tonumber(lease) then
			redis.call('PEXPIRE', lock, lease)
		end
		tokens[i + 1] = tonumber(redis.call('HGET', lock, 'token'))
	else
		local last = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
		local token = string.format('%.0f', math.max(last + 1, now))
		redis.call('SET', KEYS[2 * i], token, 'PX', ARGV[3])
		redis.call('HSET', lock, 'owner', ARGV[1], 'holds', 1, 'token', token)
		redis.call('PEXPIRE', lock, lease)
		tokens[i + 1] = tonumber(token)
	end
end
return tokens
