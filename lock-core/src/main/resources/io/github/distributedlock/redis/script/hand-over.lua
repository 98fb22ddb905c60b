-- Release the last hold of a lock and grant the lock, in the same script, to a waiter of the
-- releaser's own JVM: the head of its template's line, which is asleep between attempts. It
-- is granted only while no request of the line in Redis has waited through `limit` such
-- grants in a row; at that limit, the script releases the hold as release.lua would, reserving
-- the lock for the oldest request or freeing it ("Session 21"). In any other case it refuses,
-- nothing changes, and the caller releases with release.lua. A grant is the one place where a
-- script run by another caller makes a holder, and only the releaser's JVM, which chose the
-- head's hold id, reads its reply (docs/design/waiting-and-hand-off.md, "Hand-off inside one
-- JVM").
--
-- KEYS: lock, requests, readers, fence, channel
-- ARGV: owner, token, hold, head_owner, head_hold, head_lease_ms, head_request, limit, fence_idle_ms
--
-- KEYS[1]  the lock hash (acquire.lua); a grant also writes 'granted' (the token it gave) and
--          'run' (how many grants in a row led to it); 'queued' marks one that an attempt found
--          taken (mark_queued in lib.lua)
-- KEYS[2]  the requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- KEYS[3]  the lock's readers: while the releaser also reads (a downgrade), nothing is granted
-- KEYS[4]  the fencing counter of the lock's hash slot
-- KEYS[5]  the lock's release channel (declared as a key so that it routes with the lock), told
--          of a refusal at the limit as release.lua tells it
-- ARGV[1]  the releaser's owner
-- ARGV[2]  the fencing token of the releaser's hold
-- ARGV[3]  the releaser's hold id
-- ARGV[4]  the head's owner digest (the releaser's JVM knows the head's owner)
-- ARGV[5]  the head's hold id: the id of its acquisition, the same for each of its attempts
-- ARGV[6]  the head's lease in milliseconds
-- ARGV[7]  the head's request in the line, or '' for none: it leaves the line with the grant
-- ARGV[8]  the most grants in a row while another request waits (distributed-lock.local-hand-offs)
-- ARGV[9]  idle time in ms after which the fencing counter may vanish, sent only when it is not
--          its default, LockKeys.FENCE_IDLE_MILLIS (LockScriptsTests checks it)
--
-- Run twice (re-sent after a reconnect), the second run finds the head's hold and answers the
-- grant again, with the same token and the lease only lengthened: never a second grant. After a
-- refusal at the limit, the second run finds the releaser's hold gone and returns {0}; the
-- caller's release.lua then finds the lock reserved after this hold (0) or gone (-1), as a
-- second run of release.lua would.
--
-- Returns {1, token}  granted: the head holds the lock with this new token and its own lease
--         {2}         refused at the limit: the releaser's hold is released as release.lua
--                     would (the lock reserved for the oldest request, or freed and, if
--                     marked, its token published); send nothing more
--         {0}         refused, nothing changed: release with release.lua

local head = hold_field(ARGV[5])
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'holds', 'kept', hold_field(ARGV[3]), head, 'granted', 'run',
	'queued')
if held[6] and held[1] == ARGV[4] and ARGV[4] ~= digest(ARGV[1]) then
	-- The head's hold is there: an earlier run of this script granted it (or the head's own
	-- attempt took it). The head counts its lease from before this run: it must cover that.
	-- (A head of the releaser's own owner is never granted to, below.)
	lengthen_lease(KEYS[1], ARGV[6])
	return {1, tonumber(held[2])}
end
-- Only the releaser's last hold, with no minimum hold kept and no read hold of its own, is
-- handed over; and never to its own owner, whose holds are counted, not granted.
if not held[5] or held[3] ~= '1' or held[4] or held[2] ~= ARGV[2] or held[1] ~= digest(ARGV[1])
		or held[1] == ARGV[4] or redis.call('EXISTS', KEYS[3]) == 1 then
	return {0}
end

-- Whether a request other than the head's waits in the line, and how many grants in a row led
-- to the releaser's hold: counted only if a grant made it ('granted' is its token), else none.
-- Checked against the limit either way: with a limit of 0, nothing is granted while another
-- request waits.
local line = redis.call('ZRANGE', KEYS[2], '0', '1')
local others = line[1] and (line[1] ~= ARGV[7] or line[2])
local run = '0'
if others and held[7] == held[2] then
	run = held[8]
end
if not others or tonumber(run) < tonumber(ARGV[8]) then
	if ARGV[7] ~= '' then
		redis.call('ZREM', KEYS[2], ARGV[7])
	end
	local token = next_token(KEYS[4], ARGV[9] or '604800000', server_micros())
	redis.call('HDEL', KEYS[1], hold_field(ARGV[3]))
	-- 'queued' stays set: a request of the line, or the head's next neighbour, may wait for the
	-- release of this hold too.
	redis.call('HSET', KEYS[1], 'owner', ARGV[4], 'token', token, head, '1', 'queued', '1', 'granted', token, 'run',
		tostring(tonumber(run) + 1))
	redis.call('PEXPIRE', KEYS[1], ARGV[6])
	return {1, tonumber(token)}
end

-- (lib.lua: the functions that only the code below calls)

-- At the limit: no grant. The hold goes as release.lua would release it, on the state this
-- script found: the releaser's last hold, no minimum hold kept, nobody reading (all checked
-- above), so the lock is reserved for the oldest request if it is marked 'queued', or freed.
-- The head, told of the refusal, attempts at once, and finds the lock reserved for its own
-- request if that was the oldest.
pass_on(KEYS[1], KEYS[5], KEYS[2], nil, hold_field(ARGV[3]), held[2], held[9], held[9])
return {2}
