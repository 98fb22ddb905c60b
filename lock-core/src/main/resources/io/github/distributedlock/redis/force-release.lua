-- Delete a lock whoever holds it, and wake its waiters. For operators only: it breaks
-- mutual exclusion for the current holder, whose release will then report a lost lease.
--
-- KEYS: lock, channel
-- ARGV:
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel
--
-- Returns  1 if a lock was deleted, 0 if it was free

if redis.call('DEL', KEYS[1]) == 0 then
	return 0
end
redis.call('PUBLISH', KEYS[2], 'forced')
return 1
