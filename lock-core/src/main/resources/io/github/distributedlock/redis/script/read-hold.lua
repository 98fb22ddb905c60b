-- Read who holds a lock, with its token, remaining lease and one of its holds, in one step: what
-- findHeld wraps in a handle, whose deadline must not outlast the lease Redis has.
--
-- KEYS: lock
-- ARGV:
-- KEYS[1]  the lock hash
--
-- Returns {owner digest, token, pttl, hold id}, or {} if nobody holds it (free, or only reserved
-- for a request)

local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
if not held[1] or held[1] == '' then
	return {}
end
local hold = ''
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
	if string.sub(field, 1, 1) == '#' then
		hold = string.sub(field, 2)
		break
	end
end
return {held[1], held[2], redis.call('PTTL', KEYS[1]), hold}
