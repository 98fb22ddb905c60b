-- Leave a fair lock's queue (the waiter gave up); if the lock is free, or kept for a minimum
-- hold, wake the new head.
--
-- KEYS: lock, channel, queue, queue_heartbeats
-- ARGV: owner, hold
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel
-- KEYS[3]  the queue
-- KEYS[4]  the queue heartbeats
-- ARGV[1]  owner
-- ARGV[2]  the hold the waiting acquisition asked for: its place is its own (acquire-fair.lua)
--
-- Returns 1 if the waiter was in the queue, 0 otherwise

local waiter = digest(ARGV[1]) .. '|' .. ARGV[2]
local removed = redis.call('ZREM', KEYS[3], waiter)
redis.call('ZREM', KEYS[4], waiter)
-- A kept lock (owner '', keep_taken in lib.lua) has no holder to name the next waiter, and its
-- expiry publishes nothing: named here, the new head learns how long the keep lasts.
if removed == 1 and (redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'owner') == '') then
	local head = redis.call('ZRANGE', KEYS[3], '0', '0')[1]
	if head then
		redis.call('PUBLISH', KEYS[2], 'next:' .. head)
	end
end
return removed
