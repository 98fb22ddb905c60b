-- Release one hold of a lock, or withdraw a waiter's request. When the last hold goes, the lock
-- is reserved for the oldest request, if any, and its waiter told; otherwise it is deleted, and
-- the waiters, if a waiter's attempt found it taken, woken. A reservation is not a hold: only the
-- request's own acquire attempt turns it into one (docs/design/waiting-and-hand-off.md).
--
-- KEYS: lock, channel, requests, readers
-- ARGV: owner, token, hold, hand_off, keep_ms, [withdrawn_request]
-- KEYS[1]  the lock hash ('queued' marks one that an attempt found taken: mark_queued in lib.lua)
-- KEYS[2]  the lock's release channel (declared as a key so that it routes with the lock)
-- KEYS[3]  the requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- KEYS[4]  the lock's readers: nothing is reserved while they exist (a writer that downgraded)
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold being released, or '0' for the hold that ARGV[3] names,
--          whatever the lock's token: the undo of an attempt whose reply never came (DriverCommands.undo)
-- ARGV[3]  the hold's id (its field '#<hold>' in the lock hash)
-- ARGV[4..5] sent only when one of them is not at its default ('1', '0'), or ARGV[6] follows
-- ARGV[4]  '1' to reserve the lock for the oldest request, '0' to always free it
-- ARGV[5]  what is left of the hold's minimum hold, in ms ('0' for none): if the last hold goes
--          before it has passed, the lock stays taken by nobody until then (keep_taken in lib.lua)
-- ARGV[6]  (optional) the request of a waiter that gives up: withdrawn, and a reservation for
--          it passes on (ARGV[1], ARGV[2], ARGV[3] and ARGV[5] are then ignored)
--
-- Run twice (re-sent after a reconnect), the second run finds the hold's field gone and changes
-- nothing: it reports the holds left, or 0 if the lock is reserved or kept after this grant; -1
-- if the first run deleted the lock, or -2 if another owner took it since.
--
-- Returns  holds left (0: the lock was reserved, kept for its minimum hold, or freed, with a
--          message if it was marked); -1 the lock is gone (its lease ran out, or it was
--          force-released); -2 someone else holds it now (another owner, or a newer hold of
--          ours), or, for a withdrawal, the lock was not reserved for that request

local field = hold_field(ARGV[3])
local hand_off = ARGV[4] or '1'
local keep_ms = ARGV[5] or '0'
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'holds', 'reserved', 'queued', 'kept', field)
if ARGV[6] then
	redis.call('ZREM', KEYS[3], ARGV[6])
	-- Never touch a lock that has an owner: only a reservation for this very request.
	if held[1] ~= '' or ARGV[6] == '' or held[4] ~= ARGV[6] then
		return -2
	end
else
	-- Hold ids are unique, so the owner and the field name the hold without its token.
	local token = (ARGV[2] == '0') and held[2] or ARGV[2]
	local status = check_hold(held, digest(ARGV[1]), token)
	if status ~= 0 then
		if held[1] == '' and held[2] == ARGV[2] then
			-- Reserved or kept after this grant's last release: this release ran before.
			return 0
		end
		return status
	end
	if not held[7] then
		-- This hold was released before (this release ran twice), or a take-over replaced it:
		-- the holds that are left stay.
		return tonumber(held[3])
	end
	if held[3] == '1' and not held[5] and not held[6] and keep_ms == '0' then
		-- The usual case: the last hold of an unmarked lock, no minimum hold, nobody to tell.
		redis.call('DEL', KEYS[1])
		return 0
	end
end

-- (lib.lua: the functions that only the code below calls)

if not ARGV[6] and held[3] == '1' and keep_ms == '0' and not held[6] then
	-- The usual contended case: the last hold of a marked lock, with no minimum hold.
	pass_on(KEYS[1], KEYS[2], KEYS[3], KEYS[4], field, held[2], hand_off == '1', true)
	return 0
end

-- (lib.lua: the functions that only the code below calls)

if not ARGV[6] then
	if held[3] ~= '1' then
		redis.call('HDEL', KEYS[1], field)
		note_kept(KEYS[1], keep_ms, held[6])
		return redis.call('HINCRBY', KEYS[1], 'holds', '-1')
	end
	-- The last hold: its field goes with the hash, or below, where the hash stays.
	if keep_taken(KEYS[1], keep_ms, held[6]) then
		redis.call('HDEL', KEYS[1], field)
		-- A hint: waiters try again and learn how long the lock stays kept.
		redis.call('PUBLISH', KEYS[2], held[2])
		return 0
	end
end

-- Only a marked lock (mark_queued in lib.lua) or a withdrawal has waiters to tell.
local waited = ARGV[6] or held[5]
pass_on(KEYS[1], KEYS[2], KEYS[3], KEYS[4], (not ARGV[6]) and field or nil, held[2], hand_off == '1' and waited,
	waited)
return 0
