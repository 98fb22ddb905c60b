-- The fenced floor's acquire: the cheapest lock that keeps what issue 25 keeps, and nothing else:
-- a fencing token on every hold, an owner that Redis sees only as its digest, and the
-- reservation's rules (a release hands the lock to the oldest waiter in line by reserving it, a
-- message only wakes that waiter, and only this script's reply makes it the holder). No
-- re-entry, readers, minimum hold or withdrawal. A floor to measure the engine's acquire.lua
-- against (FencedFloorScripts), not a lock to use.
--
-- KEYS: lock, counter
-- ARGV: owner, lease_ms, [request]
--
-- KEYS[1]  the lock: '<sha1(owner)>:<token>' with the lease as expiry, and '*' after it once an
--          attempt found it taken (its release then looks at the line); or 'r:<request>' while
--          reserved for a waiter's request, for CLAIM_MS
-- KEYS[2]  the fencing counter, one per hash slot as lock-core's (LockKeys.fence)
--          The line, a sorted set of requests by arrival (µs), is KEYS[1] .. ':line', in the
--          lock's hash slot: not declared, so that an uncontended attempt sends what it did
--          before the floor could wait (an undeclared key is not portable: a floor, not a lock)
-- ARGV[1]  owner: a secret the caller keeps; Redis sees only its digest
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  (only from a caller that has waited for this lock, or knows it contended) the
--          caller's request: filed in the line when the lock is taken, and a lock reserved for
--          it is the caller's to take
--
-- Returns {1, token}  acquired; the token as text, as the rule below writes it
--         {0, pttl}   held by anyone (the caller included: no re-entry) or reserved for another
--                     request, for pttl ms more

local request = ARGV[3]
local held = false
if request then
	held = redis.call('GET', KEYS[1])
	if held and held ~= 'r:' .. request then
		-- Taken, or reserved for another request: mark a hold (not a reservation, which its
		-- taker marks), and file the request once, keeping its place.
		if string.byte(held, -1) ~= 42 and string.sub(held, 1, 2) ~= 'r:' then
			redis.call('APPEND', KEYS[1], '*')
		end
		local clock = redis.call('TIME')
		redis.call('ZADD', KEYS[1] .. ':line', 'NX', clock[1] .. string.sub('000000', #clock[2] + 1) .. clock[2],
			request)
		return {0, redis.call('PTTL', KEYS[1])}
	end
end
-- Fencing: the token is max(last + 1, server time in µs), next_token's rule in lock-core's
-- lib.lua, so tokens increase strictly across a counter that expired or was lost. The clock in
-- µs as text: the seconds and the microseconds padded to six digits, joined without tonumber.
local clock = redis.call('TIME')
local token = clock[1] .. string.sub('000000', #clock[2] + 1) .. clock[2]
-- Store the clock and read the last token in one command. The counter outlives 7 days without
-- acquisitions (LockKeys.FENCE_IDLE_MILLIS): far longer than a token can lead the clock.
local last = redis.call('SET', KEYS[2], token, 'PX', '604800000', 'GET')
-- Two decimal integers without leading zeros: the longer is the larger, equal lengths compare as
-- text. A last token not below the clock (tokens faster than the clock, or a clock that stepped
-- back) gives last + 1, which the counter keeps instead.
if last and (#last > #token or (#last == #token and last >= token)) then
	token = string.format('%.0f', tonumber(last) + 1)
	redis.call('SET', KEYS[2], token, 'PX', '604800000')
end
-- Exclusion, and owner secrecy: the lock keeps the owner's digest, never the owner, so reading it
-- does not let anyone release it.
local value = redis.sha1hex(ARGV[1]) .. ':' .. token
if request then
	-- Reserved for this request (the release took it out of the line), or free (a reservation
	-- for another lapsed, so the request may be in line still). Others may wait: taken marked.
	if not held then
		redis.call('ZREM', KEYS[1] .. ':line', request)
	end
	redis.call('SET', KEYS[1], value .. '*', 'PX', ARGV[2])
	return {1, token}
end
-- A taken lock burns the token, which keeps tokens increasing.
if redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2]) then
	return {1, token}
end
-- Taken: mark it, once, so that its release looks at the line (the caller files its request
-- with its next attempt, after it has subscribed).
held = redis.call('GET', KEYS[1])
if string.byte(held, -1) ~= 42 and string.sub(held, 1, 2) ~= 'r:' then
	redis.call('APPEND', KEYS[1], '*')
end
return {0, redis.call('PTTL', KEYS[1])}
