-- The fenced floor's release (see fenced-floor-acquire.lua): only the owner itself, with the
-- token of this very hold, deletes the lock.
--
-- KEYS: lock
-- ARGV: owner, token
--
-- KEYS[1]  the lock: '<sha1(owner)>:<token>'
-- ARGV[1]  owner: the secret whose digest the lock keeps
-- ARGV[2]  the hold's fencing token, so that a release that comes late never ends a later hold,
--          the same owner's included
--
-- Returns 1 released, 0 the lock is gone or is not this hold (nothing changed)

if redis.call('GET', KEYS[1]) == redis.sha1hex(ARGV[1]) .. ':' .. ARGV[2] then
	return redis.call('DEL', KEYS[1])
end
return 0
