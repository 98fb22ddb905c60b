-- Release one hold of a lock; the last hold deletes it and wakes the waiters.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel (declared as a key so that it routes with the lock)
-- ARGV[1]  owner
-- ARGV[2]  fencing token of the hold being released
--
-- Returns  holds left (0: the lock is free and a message was published)
--          -1 the lock is gone: the lease ran out, or it was force-released
--          -2 someone else holds it now (another owner, or a newer hold of ours)

local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'holds')
if not held[1] then
	return -1
end
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then
	return -2
end
if held[3] ~= '1' then
	return redis.call('HINCRBY', KEYS[1], 'holds', -1)
end

redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[2], ARGV[2])
return 0
