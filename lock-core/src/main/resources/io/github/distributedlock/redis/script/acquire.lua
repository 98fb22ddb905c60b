-- Take a lock, take it again (reentrant), or report who has it. Only an acquire script's reply
-- makes a holder: a hand-off only reserves the lock, and the request's own attempt here takes
-- it (docs/design/waiting-and-hand-off.md).
--
-- KEYS: lock, fence, readers, writer_intent, requests
-- ARGV: owner, hold, lease_ms, wait_ms, request, request_ttl_ms, may_have_intent, holds_it, reentrant, fence_idle_ms, block
-- KEYS[1]  the lock: a hash {owner (digest), holds, token, '#<hold>' = its block per hold} with the lease as
--          expiry; reserved for a request: {owner = '', reserved = the request, token = the
--          last holder's}, expiring with its claim ('reserved' '' is none); 'queued' = 1 once a
--          waiter's attempt found it taken (mark_queued in lib.lua)
-- KEYS[2]  the fencing counter of the lock's hash slot: the last token, expiring when idle
-- KEYS[3]  the lock's readers: a sorted set of reader owners scored by lease end (ms)
-- KEYS[4]  the writer intent: set while a writer waits for readers, so new readers hold back
-- KEYS[5]  the requests: a sorted set of '<claim ms>:<id>' scored by arrival (ms)
-- ARGV[1]  owner: secret instance id + thread (or a custom owner); the lock keeps its digest
-- ARGV[2]  the hold: this acquisition's id, the same in each attempt (hold_field in lib.lua)
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  how long the caller will keep waiting, in ms (-1: indefinitely); 0 is a try that will
--          not wait, which sets no writer intent and leaves no queued mark
-- ARGV[5..11] left off from the end, as far as the last one not at its default ('', 30 s, '0',
--          '0', '1', 7 days, '1'): each costs Redis time (docs/design/cost.md). The request comes first,
--          so that a waiter's attempt sends 5
-- ARGV[5]  the caller's request, or '' for none: filed (keeping its place) when the lock is
--          taken, withdrawn when the lock is ours; a lock reserved for it is ours to take
-- ARGV[6]  ms the requests set lives after the last filing; default HandOffRequest.VALIDITY_MILLIS
--          (LockScriptsTests checks the literal)
-- ARGV[7]  '1' if an earlier attempt of this caller may have set the writer intent
-- ARGV[8]  '1' if the caller already holds this lock (a real re-entry), '0' if it holds no handle on it
-- ARGV[9]  '1' if the owner may take the lock again, '0' if that is a self-deadlock; read
--          only for a re-entry (ARGV[8] '1'), and sent only then
-- ARGV[10] idle ms after which the fencing counter may vanish; default LockKeys.FENCE_IDLE_MILLIS
--          (LockScriptsTests checks the literal)
-- ARGV[11] how many tokens a new hold asks for, from its token up (reserve_block in lib.lua);
--          granted only with a request (ARGV[5]): a cohort opens only from a line's head, which
--          carries one. The hold's field keeps how many it got, so that a rerun answers the same
--
-- Returns {1, token}               acquired, re-entered, or taken before by this very attempt
--         {1, token, block}        a new hold whose attempt sent ARGV[11], or a rerun of such an
--                                  attempt: it got the tokens token .. token + block - 1 (a
--                                  take-over or a re-entry answers {1, token}: one token)
--         {0, holder token, pttl}  held by someone else, or reserved for another request; pttl:
--                                  the lease (or claim) left
--         {-1, token, pttl}        held by this owner and not reentrant, or this owner reads it
--                                  (upgrading would deadlock)

local owner = digest(ARGV[1])
local hold = hold_field(ARGV[2])
local request = ARGV[5] or ''
local fence_idle_ms = ARGV[10] or '604800000'

-- The usual case, a name nobody holds, reserves, reads or waits for, costs one command to tell.
-- A writer intent counts: the readers it held back marked no hash, so this hold must be marked.
-- A waiter's attempt (it carries a request) expects the lock taken, and skips this.
if request == '' and redis.call('EXISTS', KEYS[1], KEYS[3], KEYS[4], KEYS[5]) == 0 then
	-- A new hold as below, but unmarked: there is no request to withdraw, nor writer intent.
	local token = next_token(KEYS[2], fence_idle_ms, server_micros())
	redis.call('HSET', KEYS[1], 'owner', owner, 'holds', '1', 'token', token, hold, '1')
	redis.call('PEXPIRE', KEYS[1], ARGV[3])
	return {1, tonumber(token)}
end

-- (lib.lua: the functions that only the code below calls)

local request_ttl_ms = ARGV[6] or '30000'
-- A try (wait 0, no request; a waiter never sends 0) does not mark the lock: nobody listens.
local waits = request ~= '' or ARGV[4] ~= '0'
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'reserved', 'queued', hold)

if held[1] == '' and (request == '' or held[3] ~= request) then
	-- Reserved for another waiter's request (or kept for a minimum hold): taken, for as long
	-- as its claim.
	file_and_mark(KEYS[1], held, KEYS[5], request, request_ttl_ms, waits)
	return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
end

if held[1] and held[1] ~= '' and held[1] ~= owner then
	-- Another owner's: taken, for as long as its lease (the usual blocked attempt).
	file_and_mark(KEYS[1], held, KEYS[5], request, request_ttl_ms, waits)
	return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
end

-- (lib.lua: the functions that only the code below calls)

if not held[1] or held[1] == '' then
	-- Only a lock found free asks for readers: a release reserves only with no readers key,
	-- and no reader joins a lock reserved for another request (acquire-read.lua).
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
			file_and_mark(KEYS[1], held, KEYS[5], request, request_ttl_ms, waits)
			return {0, 0, ttl}
		end
	end
	-- The lock becomes ours, marked 'queued': requests may be waiting (the line is not looked
	-- at), so its release must look. Owner '' means reserved for this request (HMGET gives
	-- false, not nil, for a missing hash).
	local reserved = held[1] == ''
	local now_us = server_micros()
	local token = next_token(KEYS[2], fence_idle_ms, now_us)
	-- A block only for a waiter's attempt: a cohort opens from a line's head.
	local block = '1'
	if request ~= '' and ARGV[11] then
		block = reserve_block(KEYS[2], fence_idle_ms, token, now_us, ARGV[11])
	end
	if reserved then
		-- The reservation becomes our hold ('reserved' = '' is no reservation).
		redis.call('HSET', KEYS[1], 'owner', owner, 'holds', '1', 'token', token, hold, block, 'reserved', '', 'queued',
			'1')
	else
		redis.call('HSET', KEYS[1], 'owner', owner, 'holds', '1', 'token', token, hold, block, 'queued', '1')
	end
	redis.call('PEXPIRE', KEYS[1], ARGV[3])
	drop_intent(KEYS[4], owner, ARGV[7])
	-- A reserved request left the line when the release reserved for it (release.lua), and is
	-- not filed while reserved: nothing to withdraw.
	if not reserved then
		withdraw_request(KEYS[5], request)
	end
	return {1, tonumber(token), ARGV[11] and tonumber(block)}
end

-- (lib.lua: the functions that only the code below calls)

-- Ours: every other owner's hold returned above.
if held[1] == owner then
	drop_intent(KEYS[4], owner, ARGV[7])
	if held[5] then
		-- An earlier run of this very attempt took it (its reply was lost). The caller
		-- counts the lease from before this run: it must cover that.
		lengthen_lease(KEYS[1], ARGV[3])
		withdraw_request(KEYS[5], request)
		-- The field keeps the block the first run got.
		return {1, tonumber(held[2]), ARGV[11] and tonumber(held[5])}
	end
	if ARGV[8] ~= '1' then
		-- Ours, yet the caller has no handle on it: an acquisition whose reply was lost. Take
		-- it over as one fresh hold, or its release would leave the lock taken, and never
		-- shorten the lease, which a live hold of ours may count on. A late attempt changes
		-- nothing (take_over in lib.lua).
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
