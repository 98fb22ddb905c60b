-- Drop a writer's intent when the writer stops waiting without the lock (cancelled,
-- interrupted, failed or timed out), so that new readers are not held back for a writer that
-- no longer waits. Only the caller's own intent goes: another writer's stays.
--
-- KEYS: writer_intent, channel
-- ARGV: owner
-- KEYS[1]  the writer intent: the waiting writer's owner digest (set by acquire.lua)
-- KEYS[2]  the lock's release channel (declared as a key so that it routes with the lock)
-- ARGV[1]  owner
--
-- Returns  1 if the intent was dropped, 0 if it was gone or another writer's

if redis.call('GET', KEYS[1]) == digest(ARGV[1]) then
	redis.call('DEL', KEYS[1])
	-- A hint: readers the intent held back sleep until it ends, and no release would wake them.
	redis.call('PUBLISH', KEYS[2], 'intent-dropped')
	return 1
end
return 0
