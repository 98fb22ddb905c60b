-- Release one hold of a lock. The last hold hands the lock straight to a waiter that asked for
-- it (no retry round trip, and no other caller can barge in), or deletes it and wakes the waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel (declared as a key so that it routes with the lock)
-- KEYS[3]  the hand-off requests: a sorted set of '<lease> <ticket> <owner>' by when each lapses (ms)
-- KEYS[4]  the lock's fencing counter
-- KEYS[5]  the lock's readers: a writer that took a read lock too (a downgrade) still reads, so
--          then nobody is handed the lock
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold being released
-- ARGV[3]  idle time in milliseconds after which the fencing counter may vanish
-- ARGV[4]  the claim lease in ms a handed-over lock gets until its new owner confirms its own
--          lease ('0': hand nothing over)
-- ARGV[5]  (optional) the request of a waiter that gives up: it is withdrawn, and if the lock was
--          handed to that very request meanwhile (and not taken), it is released (ARGV[2] is ignored)
--
-- Returns  holds left (0: the lock was handed over, or is free and a message was published)
--          -1 the lock is gone: the lease ran out, or it was force-released
--          -2 someone else holds it now (another owner, or a newer hold of ours)

local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'holds', 'handoff')
if ARGV[5] then
	redis.call('ZREM', KEYS[3], ARGV[5])
	if held[1] ~= ARGV[1] or held[4] ~= ARGV[5] then
		return -2
	end
else
	if not held[1] then
		return -1
	end
	if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then
		return -2
	end
	if held[3] ~= '1' then
		return redis.call('HINCRBY', KEYS[1], 'holds', -1)
	end
end

if ARGV[4] ~= '0' then
	local next = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
	if next[1] and redis.call('EXISTS', KEYS[5]) == 0 then
		local clock = redis.call('TIME')
		local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
		-- Requests that lapsed (their waiter died or stopped asking) are dropped.
		while next[1] and tonumber(next[2]) <= nowMs do
			redis.call('ZREM', KEYS[3], next[1])
			next = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
		end
		if next[1] then
			redis.call('ZREM', KEYS[3], next[1])
			local lease, owner = string.match(next[1], '^(%d+) %d+ (.*)$')
			-- The same fencing rule as acquire.lua: max(last + 1, server time in microseconds).
			local token = string.format('%.0f', tonumber(clock[1]) * 1000000 + tonumber(clock[2]))
			local last = redis.call('SET', KEYS[4], token, 'PX', ARGV[3], 'GET')
			if last and tonumber(last) >= tonumber(token) then
				token = string.format('%.0f', tonumber(last) + 1)
				redis.call('SET', KEYS[4], token, 'PX', ARGV[3])
			end
			-- Until the new owner confirms its lease, a short claim: a waiter that died after
			-- asking costs at most this long.
			local claim = math.min(tonumber(lease), tonumber(ARGV[4]))
			redis.call('HSET', KEYS[1], 'owner', owner, 'holds', 1, 'token', token, 'handoff', next[1])
			redis.call('PEXPIRE', KEYS[1], claim)
			redis.call('PUBLISH', KEYS[2], 'handoff:' .. token .. ' ' .. claim .. ' ' .. next[1])
			return 0
		end
	end
end

redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[2], held[2])
return 0
