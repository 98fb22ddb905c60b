-- Release one hold of a fair lock; the last hold deletes it and wakes only the next waiter.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel
-- KEYS[3]  the queue (waiter owners by arrival ticket)
-- KEYS[4]  the queue heartbeats (waiter owners by when they count as dead, ms)
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold being released
--
-- Returns  holds left (0: released), -1 the lock is gone, -2 someone else holds it now

local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
if not held[1] then
	return -1
end
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then
	return -2
end
local holds = redis.call('HINCRBY', KEYS[1], 'holds', -1)
if holds > 0 then
	return holds
end
redis.call('DEL', KEYS[1])

local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', nowMs)
for _, waiter in ipairs(dead) do
	redis.call('ZREM', KEYS[3], waiter)
	redis.call('ZREM', KEYS[4], waiter)
end
local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
-- The message names the waiter whose turn it is; the others keep sleeping.
redis.call('PUBLISH', KEYS[2], 'next:' .. (head or ''))
return 0
