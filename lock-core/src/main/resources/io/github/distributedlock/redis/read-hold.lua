-- Read who holds a lock, with its token and remaining lease, in one step: what findHeld wraps
-- in a handle, whose deadline must not outlast the lease Redis has.
--
-- KEYS: lock
-- ARGV:
--
-- KEYS[1]  the lock hash
--
-- Returns {owner, token, pttl}, or {} if nobody holds it (free, or only reserved for a request)

local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
if not held[1] or held[1] == '' then
	return {}
end
return {held[1], held[2], redis.call('PTTL', KEYS[1])}
