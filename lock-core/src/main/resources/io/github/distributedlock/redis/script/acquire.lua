-- Take a lock, take it again (reentrant), or report who has it. This script, and the other
-- acquire scripts, are the only places where a caller becomes a holder: a hand-off only
-- reserves the lock for a request, and the request's own attempt here takes it
-- (docs/design/waiting-and-hand-off.md).
--
-- KEYS: lock, fence, readers, writer_intent, requests
-- ARGV: owner, hold, lease_ms, wait_ms, request, request_ttl_ms, may_have_intent, holds_it, reentrant, fence_idle_ms
--
-- KEYS[1]  the lock: a hash {owner (its digest), holds, token, '#<hold>' for each hold} with a
--          lease (PEXPIRE); while reserved for a
--          waiter's request, {owner = '', reserved = the request, token = the last holder's}
--          with the request's claim as expiry ('reserved' = '' is none); 'queued' = 1 once an
--          attempt found it taken
--          (mark_queued in lib.lua)
-- KEYS[2]  the fencing counter of the lock's hash slot: the last token handed out there,
--          expiring after a long idle time
-- KEYS[3]  the lock's readers: a sorted set of reader owners scored by lease end (ms)
-- KEYS[4]  the writer intent: set while a writer waits for readers, so new readers hold back
-- KEYS[5]  the requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- ARGV[1]  owner: secret instance id + thread (or a custom owner); the lock keeps its digest
-- ARGV[2]  the hold: an id this acquisition chose, the same for each of its attempts, so that
--          an attempt that ran before (its reply lost) is found rather than counted again
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  how long the caller will keep waiting, in ms (-1: indefinitely); 0 sets no writer intent
-- ARGV[5..10] may be left off from the end: the caller sends them only as far as the last one
--          not at its default ('', 30 s, '0', '0', '1', 7 days; ARGV[6] counts only with a
--          request). Each argument costs Redis about as much as a few lines of Lua
--          (docs/design/cost.md), and the usual first attempt needs none. The request comes
--          first: a waiter's attempts (two per contended acquisition, one more for each second
--          a hold lasts) then send 5, the rarer re-entries and custom-fence attempts more
-- ARGV[5]  the caller's request, or '' for none: filed (keeping its place) when the lock is
--          taken, withdrawn when the lock is ours; a lock reserved for it is ours to take
-- ARGV[6]  how long the requests set lives after the last filing, in ms; its default is
--          HandOffRequest.VALIDITY_MILLIS (LockScriptsTests checks it)
-- ARGV[7]  '1' if an earlier attempt of this caller may have set the writer intent
-- ARGV[8]  '1' if the caller already holds this lock (a real re-entry), '0' if it holds no handle on it
-- ARGV[9]  '1' if the owner may take the lock again, '0' if that is a self-deadlock; read
--          only for a re-entry (ARGV[8] '1'), and sent only then
-- ARGV[10] idle time in milliseconds after which the fencing counter may vanish; its default
--          is LockKeys.FENCE_IDLE_MILLIS (LockScriptsTests checks it)
--
-- Returns {1, token}                acquired (first hold or another hold by the same owner), or
--                                   this hold was taken by an earlier run of this attempt
--         {0, holder token, pttl}   held by someone else (or reserved for another request);
--                                   pttl is the remaining lease (or claim)
--         {-1, token, pttl}         held by this owner, and the request is not reentrant
--                                   (or this owner holds a read lock: upgrading would deadlock)

local owner = digest(ARGV[1])
local hold = hold_field(ARGV[2])
local request = ARGV[5] or ''
local fence_idle_ms = ARGV[10] or '604800000'

-- The usual case, a name that nobody holds, reserves, reads or waits for, costs one command to
-- tell: readers, hand-off and writer intent are looked at only when one of those keys exists.
-- A writer intent counts: readers it held back found no lock hash to mark, and only the mark
-- of the hold taken now makes its release tell them. An attempt that carries a request comes
-- from a waiter in line, which expects the lock taken or reserved for it: it skips the
-- question (and a lock it then finds free is taken marked, below).
if request == '' and redis.call('EXISTS', KEYS[1], KEYS[3], KEYS[4], KEYS[5]) == 0 then
	-- A new hold, as a lock found free below gets one, but unmarked, and without defining the
	-- functions that the other cases need: there is no request to withdraw, and no writer
	-- intent to drop (its key is not there).
	local token = next_token(KEYS[2], fence_idle_ms, server_micros())
	redis.call('HSET', KEYS[1], 'owner', owner, 'holds', '1', 'token', token, hold, '1')
	redis.call('PEXPIRE', KEYS[1], ARGV[3])
	return {1, tonumber(token)}
end

-- (lib.lua: the functions that only the code below calls)

-- For the three places below that find the lock taken: they file the caller's request, if it
-- carries one, and mark the lock hash (file_and_mark in lib.lua).
local request_ttl_ms = ARGV[6] or '30000'
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'reserved', 'queued', hold)

if held[1] == '' and (request == '' or held[3] ~= request) then
	-- Reserved for another waiter's request (or kept for a minimum hold): taken, for as long
	-- as its claim.
	file_and_mark(KEYS[1], held, KEYS[5], request, request_ttl_ms)
	return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
end

if held[1] and held[1] ~= '' and held[1] ~= owner then
	-- Another owner's: taken, for as long as its lease. The usual blocked attempt returns
	-- here, before the functions that taking the lock or joining a hold need are defined.
	file_and_mark(KEYS[1], held, KEYS[5], request, request_ttl_ms)
	return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
end

-- (lib.lua: the functions that only the code below calls)

if not held[1] or held[1] == '' then
	-- Reserved for our request (owner ''), it has no readers: a release reserves only when
	-- the readers key is gone, and no reader joins a lock reserved for another request
	-- (acquire-read.lua). So only a lock found free asks.
	if held[1] ~= '' and redis.call('EXISTS', KEYS[3]) == 1 then
		local nowMs = now_ms()
		local mine = redis.call('ZSCORE', KEYS[3], owner)
		if mine and tonumber(mine) > nowMs then
			return {-1, 0, tonumber(mine) - nowMs}
		end
		local latest = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. nowMs, '+inf', 'WITHSCORES')
		if #latest > 0 then
			-- Readers hold it: wait for the last one, and keep new readers out for as long as
			-- this writer will wait (so a writer that gives up or dies only delays readers briefly).
			local ttl = tonumber(latest[#latest]) - nowMs
			local waiting = tonumber(ARGV[4])
			if waiting ~= 0 then
				local intent = ttl
				if waiting > 0 and waiting < intent then
					intent = waiting
				end
				redis.call('SET', KEYS[4], owner, 'PX', intent + 500)
			end
			file_and_mark(KEYS[1], held, KEYS[5], request, request_ttl_ms)
			return {0, 0, ttl}
		end
	end
	-- The lock becomes ours: a new hold with the next token, marked 'queued', as requests may
	-- be waiting (the line is not looked at here), which its release must then look at (the
	-- usual case, above, takes a name nobody waits for). The owner is '' only when the lock is
	-- reserved for this request (above); HMGET gives false, not nil, for a lock hash that is
	-- not there.
	local reserved = held[1] == ''
	local token = next_token(KEYS[2], fence_idle_ms, server_micros())
	if reserved then
		-- The reservation becomes our hold ('reserved' = '' is no reservation).
		redis.call('HSET', KEYS[1], 'owner', owner, 'holds', '1', 'token', token, hold, '1', 'reserved', '', 'queued', '1')
	else
		redis.call('HSET', KEYS[1], 'owner', owner, 'holds', '1', 'token', token, hold, '1', 'queued', '1')
	end
	redis.call('PEXPIRE', KEYS[1], ARGV[3])
	drop_intent(KEYS[4], owner, ARGV[7])
	-- A reservation is made only for a request the release took out of the line (release.lua),
	-- and a request is filed only while the lock is not reserved for it: taking one's own
	-- reservation, there is nothing to withdraw.
	if not reserved then
		withdraw_request(KEYS[5], request)
	end
	return {1, tonumber(token)}
end

-- (lib.lua: the functions that only the code below calls)

-- Ours: every other owner's hold returned above.
if held[1] == owner then
	drop_intent(KEYS[4], owner, ARGV[7])
	if held[5] then
		-- This hold is there already: an earlier run of this very attempt took it, and its reply
		-- was lost (the command was sent again after a reconnect, or the caller tried again).
		-- The caller counts the lease from before this run: it must cover that.
		lengthen_lease(KEYS[1], ARGV[3])
		withdraw_request(KEYS[5], request)
		return {1, tonumber(held[2])}
	end
	if ARGV[8] ~= '1' then
		-- Ours, yet the caller has no handle on it: an earlier acquisition of its own whose reply
		-- was lost (a timeout). Take it over as one fresh hold rather than count it, or its
		-- release would leave the lock taken. The lease is never shortened: if a hold of ours
		-- is live after all, it keeps what it was given. A hold newer than this attempt's means
		-- the attempt ran late, after its acquisition ended: it changes nothing.
		if not take_over(KEYS[1], ARGV[2]) then
			return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
		end
		redis.call('HSET', KEYS[1], 'holds', '1', hold, '1')
		lengthen_lease(KEYS[1], ARGV[3])
		withdraw_request(KEYS[5], request)
		return {1, tonumber(held[2])}
	end
	if (ARGV[9] or '1') ~= '1' then
		return {-1, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
	end
	redis.call('HSET', KEYS[1], hold, '1')
	redis.call('HINCRBY', KEYS[1], 'holds', '1')
	-- Another hold never shortens the lease the outer hold relies on.
	lengthen_lease(KEYS[1], ARGV[3])
	withdraw_request(KEYS[5], request)
	return {1, tonumber(held[2])}
end
