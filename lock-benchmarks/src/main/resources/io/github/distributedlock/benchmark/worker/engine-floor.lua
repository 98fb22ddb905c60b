#!lua name=engine_floor
-- The engine floor: the fewest commands a free name needs (the fenced floor's: TIME, SET … GET
-- and SET NX PX to acquire; GET and DEL to release), behind the calls this project's engine
-- makes: FCALL of a library of functions, and the keys and arguments its usual acquire and
-- release must carry. A bound on what any layout of the engine's state could cost Redis per
-- uncontended pair while the calls stay (docs/design/cost.md), not a lock: it neither waits
-- nor re-enters, and a taken name is only refused.
--
-- engine_floor_acquire
-- KEYS: lock, fence, readers, writer_intent, requests: acquire.lua's, every one of which its
--       other paths touch in the same call (Redis's rule: a script names each key it may use)
-- ARGV: owner, hold, lease_ms, wait_ms: acquire.lua's usual first attempt (the hold id finds
--       a rerun of this very attempt; the wait tells a try, which marks nothing). The owner is
--       the secret, hashed here: the engine's re-entry and take-over lengthen a lease, so an
--       acquire must prove the owner as a release does
-- Returns {1, token} acquired, {0} taken
--
-- engine_floor_release
-- KEYS: lock, requests, readers: those release.lua's hand-off touches (it also names the
--       lock's channel, which Redis's rule does not ask for)
-- ARGV: owner, token, hold: release.lua's usual release
-- Returns 1 released, 0 not this hold

local function acquire(keys, args)
	-- The lock keeps the owner's digest, never the owner.
	local owner = redis.sha1hex(args[1])
	-- The fencing token, as next_token in lock-core's lib.lua: max(last + 1, server µs).
	local clock = redis.call('TIME')
	local token = clock[1] .. string.sub('000000', #clock[2] + 1) .. clock[2]
	local last = redis.call('SET', keys[2], token, 'PX', '604800000', 'GET')
	if last and (#last > #token or (#last == #token and last >= token)) then
		token = string.format('%.0f', tonumber(last) + 1)
		redis.call('SET', keys[2], token, 'PX', '604800000')
	end
	-- A lone first hold as a string: digest, token and hold id.
	if redis.call('SET', keys[1], owner .. '|' .. token .. '|' .. args[2], 'NX', 'PX', args[3]) then
		return {1, tonumber(token)}
	end
	return {0}
end

local function release(keys, args)
	if redis.call('GET', keys[1]) == redis.sha1hex(args[1]) .. '|' .. args[2] .. '|' .. args[3] then
		redis.call('DEL', keys[1])
		return 1
	end
	return 0
end

redis.register_function('engine_floor_acquire', acquire)
redis.register_function('engine_floor_release', release)
