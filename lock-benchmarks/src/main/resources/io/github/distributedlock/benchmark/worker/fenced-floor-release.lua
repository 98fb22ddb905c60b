-- The fenced floor's release (see fenced-floor-acquire.lua): only the owner itself, with the
-- token of this very hold, ends it. A marked lock goes to the oldest request in line, reserved
-- for CLAIM_MS, and its waiter is told; otherwise it is deleted.
--
-- KEYS: lock
-- ARGV: owner, token
--
-- KEYS[1]  the lock: '<sha1(owner)>:<token>', with '*' after it once someone waits for it; its
--          line is KEYS[1] .. ':line' (see fenced-floor-acquire.lua)
-- ARGV[1]  owner: the secret whose digest the lock keeps
-- ARGV[2]  the hold's fencing token, so that a release that comes late never ends a later hold,
--          the same owner's included
--
-- Publishes 'reserved:<request>' on 'fenced-released:<lock>' when it reserves the lock (the
-- channel is not a key: PUBLISH reaches every node of a Cluster).
--
-- Returns 1 released, 0 the lock is gone or is not this hold (nothing changed)

local CLAIM_MS = '2000'

local mine = redis.sha1hex(ARGV[1]) .. ':' .. ARGV[2]
local held = redis.call('GET', KEYS[1])
if held == mine then
	return redis.call('DEL', KEYS[1])
end
if held ~= mine .. '*' then
	return 0
end
local next = redis.call('ZPOPMIN', KEYS[1] .. ':line')[1]
if next then
	redis.call('SET', KEYS[1], 'r:' .. next, 'PX', CLAIM_MS)
	redis.call('PUBLISH', 'fenced-released:' .. KEYS[1], 'reserved:' .. next)
else
	redis.call('DEL', KEYS[1])
end
return 1
