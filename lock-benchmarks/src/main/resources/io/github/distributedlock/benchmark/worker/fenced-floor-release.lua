-- The fenced floor's release (see fenced-floor-acquire.lua): only the owner itself, with the
-- token of this very hold, deletes the lock, and wakes the waiters if it is marked.
--
-- KEYS: lock
-- ARGV: owner, token
--
-- KEYS[1]  the lock: '<sha1(owner)>:<token>', with '*' after it once someone waits for it
-- ARGV[1]  owner: the secret whose digest the lock keeps
-- ARGV[2]  the hold's fencing token, so that a release that comes late never ends a later hold,
--          the same owner's included
--
-- Publishes the token on 'fenced-released:<lock>' when the lock was marked (the channel is not
-- a key: PUBLISH reaches every node of a Cluster).
--
-- Returns 1 released, 0 the lock is gone or is not this hold (nothing changed)

local mine = redis.sha1hex(ARGV[1]) .. ':' .. ARGV[2]
local held = redis.call('GET', KEYS[1])
if held == mine then
	return redis.call('DEL', KEYS[1])
end
if held == mine .. '*' then
	redis.call('DEL', KEYS[1])
	redis.call('PUBLISH', 'fenced-released:' .. KEYS[1], ARGV[2])
	return 1
end
return 0
