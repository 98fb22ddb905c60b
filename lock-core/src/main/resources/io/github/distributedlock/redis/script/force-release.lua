-- Delete a lock whoever holds it, and wake its waiters. For operators only: it breaks
-- mutual exclusion for the current holder, whose release will then report a lost lease.
--
-- KEYS: lock, channel
-- ARGV: token
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel
-- ARGV[1]  the token of the hold to force out, as the caller just read it, so that a re-sent
--          run never ends a newer hold
--
-- Returns  1 if a lock was deleted, 0 if it was free or held under another token

if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
	return 0
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[2], 'forced')
return 1
