-- What the engine's scripts share, written once: LuaScript prepends the functions a script
-- calls (LuaLibrary). Only comments and local functions that end with 'end' in the first column
-- belong here, and a function touches only the keys it is handed (from KEYS: Cluster routing).
--
-- redis.call gets literal numbers as text ('1', not 1): it spares Redis a sprintf for the same
-- bytes (ScriptTextsTests).

-- The owner as every lock key and message carries it: a digest of the owner id. Release, extend
-- and renew demand the id itself, so reading keys or messages lets nobody act as the owner.
local function digest(owner)
	return redis.sha1hex(owner)
end

-- A hold's field in a lock hash. Every hold, the first and each re-entry, has one, named by the
-- id its acquisition chose, so that a command run twice finds its own work done
-- (docs/design/waiting-and-hand-off.md, "Every command may run twice").
local function hold_field(hold)
	return '#' .. hold
end

-- Lengthen a lock hash's lease to lease_ms, never shorten it. Every renewal and extension goes
-- through here, the sole hold's too, so a holder's deadline from any reply stays covered
-- (docs/design/waiting-and-hand-off.md, "No command shortens a lease"). It writes even an
-- unchanged expiry: from Redis 7.2 on, WAIT (ReplicaWait) counts only its connection's writes.
local function lengthen_lease(lock, lease_ms)
	local left = redis.call('PTTL', lock)
	local lease = tonumber(lease_ms)
	redis.call('PEXPIRE', lock, (left > lease) and left or lease)
end

-- Drop every hold field of a lock hash, so that a take-over replaces the holds whose replies
-- were lost, and return true. A newer hold of this process (hold ids are '<process>.<counter
-- in hex>', UniqueIds) means this attempt ran late, after its acquisition ended: then drop
-- nothing and return false (docs/design/waiting-and-hand-off.md, "A late attempt").
local function take_over(lock, hold)
	local process, counter = string.match(hold, '^(.*)%.(%x+)$')
	local fields = {}
	for _, field in ipairs(redis.call('HKEYS', lock)) do
		if string.sub(field, 1, 1) == '#' then
			local other_process, other = string.match(field, '^#(.*)%.(%x+)$')
			if process and other_process == process
				and (#other > #counter or (#other == #counter and other > counter)) then
				return false
			end
			fields[#fields + 1] = field
		end
	end
	-- One field at a time: unpack takes at most about 8,000 values.
	for _, field in ipairs(fields) do
		redis.call('HDEL', lock, field)
	end
	return true
end

-- The holds of one reader are kept as one list ',<hold>,<hold>,' in the readers' hash, so that
-- whatever drops the reader drops its holds with it. Whether the list has this hold:
local function list_has(list, hold)
	return list ~= nil and list ~= false and string.find(list, ',' .. hold .. ',', 1, true) ~= nil
end

local function list_count(list)
	local count = 0
	for _ in string.gmatch(list, ',[^,]+') do
		count = count + 1
	end
	return count
end

-- A reader's list without this hold (which it has).
local function list_without(list, hold)
	local at = string.find(list, ',' .. hold .. ',', 1, true)
	return string.sub(list, 1, at) .. string.sub(list, at + #hold + 2)
end

-- The server's clock, read once: milliseconds, and microseconds as text (for next_token).
-- The digits are joined as text: string.format costs a script more than the fencing rule does.
local function server_time()
	local clock = redis.call('TIME')
	local micros = clock[2]
	return tonumber(clock[1]) * 1000 + math.floor(tonumber(micros) / 1000),
		clock[1] .. string.sub('000000', #micros + 1) .. micros
end

-- The server's clock in milliseconds, as server_time gives them, without the text (cheaper).
local function now_ms()
	local clock = redis.call('TIME')
	return tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
end

-- The server's clock in milliseconds as text, for a command's argument (see the top). TIME
-- gives the microseconds without leading zeros; five in front leave at least six digits.
local function now_ms_text()
	local clock = redis.call('TIME')
	return clock[1] .. string.sub('00000' .. clock[2], -6, -4)
end

-- The server's clock in microseconds, as text, for next_token in a script that reads no other
-- clock (the others pass server_time's text, and so do not define this).
local function server_micros()
	local clock = redis.call('TIME')
	local micros = clock[2]
	return clock[1] .. string.sub('000000', #micros + 1) .. micros
end

-- The fencing rule, written only here: the next token is max(last + 1, server time in
-- microseconds), so tokens increase strictly for a lock across processes, and across the
-- counter expiring (the clock is then far past it) or being lost (a failover).
-- now_us: the script's clock reading in microseconds, as text (server_time or server_micros).
local function next_token(counter, idle_ms, now_us)
	local token = now_us
	local last = redis.call('SET', counter, token, 'PX', idle_ms, 'GET')
	-- Both are decimal integers without leading zeros (the clock, or a token written here), so
	-- the longer is the larger, and equal lengths compare as text. tonumber would read each
	-- with strtod: the uncontended acquire's costliest Lua after its commands (docs/design/cost.md).
	if last and (#last > #now_us or (#last == #now_us and last >= now_us)) then
		token = string.format('%.0f', tonumber(last) + 1)
		redis.call('SET', counter, token, 'PX', idle_ms)
	end
	return token
end

-- A block of tokens for a new hold that asks for one, after next_token gave it token: the tokens
-- token .. token + block - 1, which its JVM hands to the holders it passes the lock to in memory
-- (docs/design/cohorting.md, rule 2). Only a token the clock gave (token is now_us) starts a
-- block, so the counter never leads the clock by more than one block, and a lost counter is
-- passed by the clock at most a block's microseconds after its last grant. block: text, a whole
-- number from 1 to 1000 (CohortLimits.MAX_HOLDERS); any other grants one token, so no
-- argument moves the counter back. Returns the tokens granted, as text: block, or '1'.
local function reserve_block(counter, idle_ms, token, now_us, block)
	if token ~= now_us or block == '1' or not string.match(block, '^[1-9]%d?%d?%d?$') or tonumber(block) > 1000 then
		return '1'
	end
	redis.call('SET', counter, string.format('%.0f', tonumber(token) + tonumber(block) - 1), 'PX', idle_ms)
	return block
end

-- Where a lease (or minimum hold) of ms milliseconds from nowMs ends, as a score: 1 ms past
-- nowMs + ms, as nowMs is truncated and a member ends once the clock reaches its score
-- (drop_ended), so it lives at least ms (docs/design/waiting-and-hand-off.md, "The invariant").
local function ends_after(nowMs, ms)
	return nowMs + tonumber(ms) + 1
end

-- Let a sorted set scored by lease ends (ms), and a key that lives as long as it, expire when
-- its latest lease ends. Nothing happens to an empty set.
local function expire_at_latest(set, now, companion)
	local latest = redis.call('ZRANGE', set, '-1', '-1', 'WITHSCORES')[2]
	if not latest then
		return
	end
	local keep = tonumber(latest) - now
	redis.call('PEXPIRE', set, keep)
	if companion then
		redis.call('PEXPIRE', companion, keep)
	end
end

-- Drop the members of a sorted set scored by when they end (ms) whose time has come, with their
-- entries in a companion sorted set (companion_set) or hash (companion_hash).
local function drop_ended(set, now, companion_set, companion_hash)
	if not companion_set and not companion_hash then
		redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
		return
	end
	local ended = redis.call('ZRANGEBYSCORE', set, '-inf', now)
	for _, member in ipairs(ended) do
		redis.call('ZREM', set, member)
		if companion_set then
			redis.call('ZREM', companion_set, member)
		end
		if companion_hash then
			redis.call('HDEL', companion_hash, member)
		end
	end
end

-- The owner check: whether a lock hash's hold (held = HMGET lock owner token ...) is this
-- owner's (owner: its digest) with this token. Returns 0 if it is, -1 if the lock is gone (the
-- lease ran out, or it was force-released), -2 if someone else holds it (another owner, a newer
-- hold of ours, or only a reservation or a kept lock).
local function check_hold(held, owner, token)
	if not held[1] then
		return -1
	end
	if held[1] == '' or held[1] ~= owner or held[2] ~= token then
		return -2
	end
	return 0
end

-- The minimum hold (holdAtLeast): when a lock's last hold goes before it has passed, the lock
-- stays taken by nobody until then, capped by its lease (owner '' and no reservation, which no
-- acquire, release, extend or renew matches, so it only expires). keep_ms: what is left of the
-- releasing hold's minimum hold; kept_until: server ms or nil, the latest end an inner hold
-- recorded (note_kept). Returns whether the lock was kept.
local function keep_taken(lock, keep_ms, kept_until)
	local keep = tonumber(keep_ms)
	if kept_until then
		local left = tonumber(kept_until) - now_ms()
		if left > keep then
			keep = left
		end
	end
	if keep <= 0 then
		return false
	end
	local pttl = redis.call('PTTL', lock)
	if pttl < keep then
		keep = pttl
	end
	if keep <= 0 then
		-- The lease ends now. An inner hold's end ('kept') must not outlive it into the grant of
		-- the next holder, which a reservation would otherwise pass it on to.
		redis.call('HDEL', lock, 'kept')
		return false
	end
	redis.call('HSET', lock, 'owner', '', 'holds', '0')
	redis.call('PEXPIRE', lock, keep)
	return true
end

-- Record the end of an inner hold's minimum hold, released while outer holds remain, so that
-- the last release (keep_taken) honours it too.
local function note_kept(lock, keep_ms, kept_until)
	local keep = tonumber(keep_ms)
	if keep > 0 then
		local ends = ends_after(now_ms(), keep)
		if not kept_until or tonumber(kept_until) < ends then
			redis.call('HSET', lock, 'kept', ends)
		end
	end
end

-- File a waiter's request in a lock's line, keeping its place if it is there already; the line
-- lives for ttl_ms after the last filing.
local function file_request(requests, request, now, ttl_ms)
	redis.call('ZADD', requests, 'NX', now, request)
	redis.call('PEXPIRE', requests, ttl_ms)
end

-- Mark a lock hash 'queued' (queued: the mark as the script read it, so it is written once).
-- Every attempt of a waiter that finds a lock hash taken (held, reserved or kept) marks it, for
-- as long as the hash lives; only a marked hold's release looks at the line and tells the
-- waiters, as no waiter tried an unmarked one (docs/design/waiting-and-hand-off.md, "The queued mark").
local function mark_queued(lock, queued)
	if not queued then
		redis.call('HSET', lock, 'queued', '1')
	end
end

-- The last hold of a lock goes (release.lua), or a waiter withdraws its request. If reserve
-- (marked, and hand-offs on), the lock is reserved for the oldest well-formed request unless
-- someone reads it (readers; nil when the caller checked), and its waiter is told; otherwise
-- it is deleted, and if waited (marked) the waiters are told the token. field: the hold's
-- field, dropped with a reservation (nil for a withdrawal).
local function pass_on(lock, channel, requests, readers, field, token, reserve, waited)
	-- ZRANGE and ZREM rather than ZPOPMIN, which the minimal ACL documented for the library lacks.
	local line = reserve and redis.call('ZRANGE', requests, '0', '0') or {}
	if line[1] and (not readers or redis.call('EXISTS', readers) == 0) then
		while line[1] do
			local next = line[1]
			redis.call('ZREM', requests, next)
			-- The claim bounds what a dead waiter costs the others. Only a positive claim of
			-- at most 12 digits without a leading zero is read (PEXPIRE takes it as text); any
			-- other member is dropped before any write. Older engines' ':c:' and ':q:' requests
			-- are served like any (docs/design/waiting-and-hand-off.md, "Rolling upgrade").
			local claim = string.match(next, '^([1-9]%d*):')
			if claim and #claim <= 12 then
				redis.call('HSET', lock, 'owner', '', 'holds', '0', 'reserved', next)
				if field then
					redis.call('HDEL', lock, field)
				end
				redis.call('PEXPIRE', lock, claim)
				redis.call('PUBLISH', channel, 'reserved:' .. next)
				return
			end
			line = redis.call('ZRANGE', requests, '0', '0')
		end
	end
	redis.call('DEL', lock)
	if waited then
		redis.call('PUBLISH', channel, token)
	end
end

-- Only acquire.lua calls the functions below: written here rather than in the script, they are
-- defined once by the Functions library (LockFunctions), not on every contended attempt.

-- An attempt that finds the lock taken: file the caller's request, if any (request '' is
-- none), and mark the lock hash, if there is one and the caller waits (mark_queued): a try
-- that will not wait (waits false) hears nothing, so its release need not tell anyone. held:
-- the attempt's HMGET of the lock hash, owner first and 'queued' fourth.
local function file_and_mark(lock, held, requests, request, request_ttl_ms, waits)
	if request ~= '' then
		file_request(requests, request, now_ms_text(), request_ttl_ms)
	end
	if held[1] and waits then
		mark_queued(lock, held[4])
	end
end

-- The lock is the caller's: its request, if any (request '' is none), leaves the line.
local function withdraw_request(requests, request)
	if request ~= '' then
		redis.call('ZREM', requests, request)
	end
end

-- The caller won the lock, by a new hold or by joining its owner's: drop the writer intent it
-- may have set, or new readers would wait for a writer that no longer waits. may_have_set: '1'
-- if an earlier attempt may have set it; owner: the caller's digest, which the intent holds.
local function drop_intent(intent, owner, may_have_set)
	if may_have_set == '1' and redis.call('GET', intent) == owner then
		redis.call('DEL', intent)
	end
end
