-- The fenced floor's acquire: the cheapest lock that keeps this project's two guarantees and
-- waits by pub/sub, and nothing else (no re-entry, no waiting line, no order, no readers, no
-- hand-off: whoever tries first after a release takes the lock). A floor to measure the
-- engine's acquire.lua against (FencedFloorScripts), not a lock to use.
--
-- KEYS: lock, counter
-- ARGV: owner, lease_ms, [waiter]
--
-- KEYS[1]  the lock: '<sha1(owner)>:<token>' with the lease as expiry, and '*' after it once
--          someone waits for it (its release then publishes)
-- KEYS[2]  the fencing counter, one per hash slot as lock-core's (LockKeys.fence)
-- ARGV[1]  owner: a secret the caller keeps; Redis sees only its digest
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  (only on an attempt after the caller waited) '1': the lock is looked at before a
--          token is spent, and taken marked, as other callers may wait for it too
--
-- Returns {1, token}  acquired; the token as text, as the rule below writes it
--         {0, pttl}   held by anyone, the caller included (no re-entry), for pttl ms more

local waiter = ARGV[3]
if not waiter or redis.call('EXISTS', KEYS[1]) == 0 then
	-- Fencing: the token is max(last + 1, server time in µs), next_token's rule in lock-core's
	-- lib.lua, so tokens increase strictly across a counter that expired or was lost. The clock
	-- in µs as text: the seconds and the microseconds padded to six digits, joined without
	-- tonumber.
	local clock = redis.call('TIME')
	local token = clock[1] .. string.sub('000000', #clock[2] + 1) .. clock[2]
	-- Store the clock and read the last token in one command. The counter outlives 7 days
	-- without acquisitions (LockKeys.FENCE_IDLE_MILLIS): far longer than a token can lead the
	-- clock.
	local last = redis.call('SET', KEYS[2], token, 'PX', '604800000', 'GET')
	-- Two decimal integers without leading zeros: the longer is the larger, equal lengths
	-- compare as text. A last token not below the clock (tokens faster than the clock, or a
	-- clock that stepped back) gives last + 1, which the counter keeps instead.
	if last and (#last > #token or (#last == #token and last >= token)) then
		token = string.format('%.0f', tonumber(last) + 1)
		redis.call('SET', KEYS[2], token, 'PX', '604800000')
	end
	-- Exclusion, and owner secrecy: the lock keeps the owner's digest, never the owner, so
	-- reading it does not let anyone release it. A taken lock burns the token, which keeps
	-- tokens increasing.
	local value = redis.sha1hex(ARGV[1]) .. ':' .. token
	if waiter then
		value = value .. '*'
	end
	if redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2]) then
		return {1, token}
	end
end
-- Taken: mark it, once, so that its release wakes the waiters (a release that nobody waited
-- for publishes nothing), and say for how long a waiter may sleep without a message.
if string.byte(redis.call('GET', KEYS[1]), -1) ~= 42 then
	redis.call('APPEND', KEYS[1], '*')
end
return {0, redis.call('PTTL', KEYS[1])}
