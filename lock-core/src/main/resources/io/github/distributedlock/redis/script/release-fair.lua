-- Release one hold of a fair lock; the last hold deletes it and wakes only the next waiter.
--
-- KEYS: lock, channel, queue, queue_heartbeats
-- ARGV: owner, token, hold, keep_ms
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel
-- KEYS[3]  the queue (waiting acquisitions, '<owner digest>|<hold>', by arrival ticket)
-- KEYS[4]  the queue heartbeats (the same members by when they count as dead, ms)
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold being released, or '0' for the hold that ARGV[3] names,
--          whatever the lock's token: the undo of an attempt whose reply never came (DriverCommands.undo)
-- ARGV[3]  the hold's id
-- ARGV[4]  what is left of the hold's minimum hold, in ms ('0' for none): if the last hold goes
--          before it has passed, the lock stays taken by nobody until then (keep_taken in lib.lua)
--
-- Run twice, the second run finds the hold's field gone and changes nothing.
--
-- Returns  holds left (0: released), -1 the lock is gone, -2 someone else holds it now

local field = hold_field(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'kept', 'holds', field)
-- Hold ids are unique, so the owner and the field name the hold without its token.
local status = check_hold(held, digest(ARGV[1]), (ARGV[2] == '0') and held[2] or ARGV[2])
if status ~= 0 then
	if held[1] == '' and held[2] == ARGV[2] then
		-- Kept after this grant's last release: this release ran before.
		return 0
	end
	return status
end
if not held[5] then
	-- Released before (this release ran twice): the holds that are left stay.
	return tonumber(held[4])
end
if held[4] ~= '1' then
	redis.call('HDEL', KEYS[1], field)
	note_kept(KEYS[1], ARGV[4], held[3])
	return redis.call('HINCRBY', KEYS[1], 'holds', '-1')
end
-- Kept for its minimum hold, the next waiter is told all the same, and learns how long.
if keep_taken(KEYS[1], ARGV[4], held[3]) then
	redis.call('HDEL', KEYS[1], field)
else
	redis.call('DEL', KEYS[1])
end

-- Waiters that stopped calling (they died or gave up) leave the queue.
drop_ended(KEYS[4], now_ms(), KEYS[3])
local head = redis.call('ZRANGE', KEYS[3], '0', '0')[1]
-- The message names the acquisition whose turn it is; the others keep sleeping.
redis.call('PUBLISH', KEYS[2], 'next:' .. (head or ''))
return 0
