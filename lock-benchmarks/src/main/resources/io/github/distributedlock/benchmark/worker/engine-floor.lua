#!lua name=engine_floor
-- The engine floor: the fewest commands a lock needs that keeps the engine's rules (a token per
-- hold, the owner's digest, each release handed to the oldest request by a reservation that
-- only the request's own attempt takes), behind the calls this project's engine makes: FCALL of
-- a library of functions, and the keys and arguments its usual acquire and release carry. The
-- lock's state is one string, as cost #8 of docs/design/cost.md would keep a lone hold, on the
-- contended path too. A bound on what any layout of the engine's state could cost Redis while
-- the calls stay (docs/design/floors.md), not a lock: nothing re-enters, reads or keeps a minimum
-- hold, and a waiter never gives up its request.
--
-- KEYS[1] the lock: '<owner digest>|<token>|<hold>' with the lease as expiry, and '*' after it
--         once a waiter found it taken (its release then looks at the line); or
--         'r:<request>|<last token>' while reserved for a request, for the request's claim
-- KEYS[5] of an acquire, KEYS[2] of a release: the requests, '<claim ms>:<id>' by arrival (ms),
--         living 30 s after the last filing, as the engine's line
--
-- engine_floor_acquire
-- KEYS: lock, fence, readers, writer_intent, requests: acquire.lua's, every one of which its
--       other paths touch in the same call (Redis's rule: a script names each key it may use)
-- ARGV: owner, hold, lease_ms, wait_ms, [request]: acquire.lua's usual attempts (the hold id
--       finds a rerun of this very attempt; the wait tells a try, which marks nothing; a
--       waiter's attempt carries its request). The owner is the secret, hashed here: the
--       engine's re-entry and take-over lengthen a lease, so an acquire must prove the owner
--       as a release does, and a waiter's attempt must tell its own hold from another's
-- Returns {1, token} acquired, {0, pttl} taken (by anyone) or reserved for another request
--
-- engine_floor_release
-- KEYS: lock, requests, readers: those release.lua's hand-off touches (it also names the
--       lock's channel, which Redis's rule does not ask for)
-- ARGV: owner, token, hold: release.lua's usual release
-- Publishes 'reserved:<request>' on 'engine-released:<lock>' when it reserves the lock, and the
--       token when it frees a lock a waiter found taken
-- Returns 1 released, 0 not this hold

-- Taken: mark it once, so that its release looks at the line (a reservation needs no mark: its
-- taker marks its own hold).
local function mark(lock, held)
	if string.byte(held, -1) ~= 42 and string.sub(held, 1, 2) ~= 'r:' then
		redis.call('APPEND', lock, '*')
	end
end

local function acquire(keys, args)
	-- The lock keeps the owner's digest, never the owner.
	local owner = redis.sha1hex(args[1])
	local request = args[5]
	local held = false
	if request then
		held = redis.call('GET', keys[1])
		if held and string.sub(held, 1, #request + 3) ~= 'r:' .. request .. '|' then
			-- Taken, or reserved for another request. The engine would tell its owner's hold
			-- here (a re-entry, or a rerun of this attempt); the floor only refuses.
			if string.sub(held, 1, 40) ~= owner then
				-- File the request once, keeping its place, in a line that lives 30 s.
				local clock = redis.call('TIME')
				redis.call('ZADD', keys[5], 'NX', clock[1] .. string.sub('00000' .. clock[2], -6, -4), request)
				redis.call('PEXPIRE', keys[5], '30000')
				if args[4] ~= '0' then
					mark(keys[1], held)
				end
			end
			return {0, redis.call('PTTL', keys[1])}
		end
	end
	-- The fencing token, as next_token in lock-core's lib.lua: max(last + 1, server µs).
	local clock = redis.call('TIME')
	local token = clock[1] .. string.sub('000000', #clock[2] + 1) .. clock[2]
	local last = redis.call('SET', keys[2], token, 'PX', '604800000', 'GET')
	if last and (#last > #token or (#last == #token and last >= token)) then
		token = string.format('%.0f', tonumber(last) + 1)
		redis.call('SET', keys[2], token, 'PX', '604800000')
	end
	local value = owner .. '|' .. token .. '|' .. args[2]
	if request then
		-- Reserved for this request (the release took it out of the line), or free (a
		-- reservation for another lapsed, so the request may be in line still). Others may
		-- wait: taken marked.
		if not held then
			redis.call('ZREM', keys[5], request)
		end
		redis.call('SET', keys[1], value .. '*', 'PX', args[3])
		return {1, tonumber(token)}
	end
	-- A lone first hold as a string: digest, token and hold id. A taken lock burns the token.
	if redis.call('SET', keys[1], value, 'NX', 'PX', args[3]) then
		return {1, tonumber(token)}
	end
	held = redis.call('GET', keys[1])
	if held and args[4] ~= '0' then
		mark(keys[1], held)
	end
	return {0, redis.call('PTTL', keys[1])}
end

local function release(keys, args)
	local mine = redis.sha1hex(args[1]) .. '|' .. args[2] .. '|' .. args[3]
	local held = redis.call('GET', keys[1])
	if held == mine then
		redis.call('DEL', keys[1])
		return 1
	end
	if held ~= mine .. '*' then
		return 0
	end
	-- The oldest request. ZPOPMIN, which the engine's documented minimal ACL lacks (it runs
	-- ZRANGE and ZREM): a floor counts the fewest commands. A request without a well-formed
	-- claim is dropped, and the lock freed (the engine tries the next one).
	local next = redis.call('ZPOPMIN', keys[2])[1]
	local claim = next and string.match(next, '^([1-9]%d*):')
	local channel = 'engine-released:' .. keys[1]
	if claim and #claim <= 12 then
		redis.call('SET', keys[1], 'r:' .. next .. '|' .. args[2], 'PX', claim)
		redis.call('PUBLISH', channel, 'reserved:' .. next)
		return 1
	end
	-- Nobody in line, yet a waiter found it taken: the engine tells the waiters that hold no
	-- request (fair ones too), so the floor publishes as well.
	redis.call('DEL', keys[1])
	redis.call('PUBLISH', channel, args[2])
	return 1
end

redis.register_function('engine_floor_acquire', acquire)
redis.register_function('engine_floor_release', release)
