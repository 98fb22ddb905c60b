-- Read which hold a lock is at, for a waiter queued behind a quiet chained head whose wait ran out
-- (docs/design/waiting-and-hand-off.md, "No reserved: message", item 4): the token of its hold, or
-- while it is kept for a minimum hold the last holder's; 0 while readers hold it, as a refused
-- attempt reports them; for a free lock the last token handed out in its hash slot, which every
-- grant there moves. The same value twice means no hold began between the two readings. -1 says
-- it cannot tell: nothing is there, or the lock is reserved for a request, which a release made
-- (a change of hands, as the reservation's message was). Writes nothing, and reads no owner.
--
-- KEYS: lock, fence, readers
-- ARGV:
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the fencing counter of the lock's hash slot
-- KEYS[3]  the lock's readers
--
-- Returns the value read, or -1

local held = redis.call('HMGET', KEYS[1], 'token', 'reserved')
if held[2] and held[2] ~= '' then
	return -1
end
if held[1] then
	return tonumber(held[1])
end
if redis.call('EXISTS', KEYS[3]) == 1 then
	return 0
end
local counter = redis.call('GET', KEYS[2])
return counter and tonumber(counter) or -1
