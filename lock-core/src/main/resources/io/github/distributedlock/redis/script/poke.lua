-- Push a chained request's hint, as a release that reserves the lock for it does (pass_on in
-- lib.lua): Redis then runs the attempt its waiter queued behind a BLPOP of this key. Its waiter
-- sends it when a message or its timer calls for an attempt while its pair is out, or when it
-- stops waiting; a hint, never a grant (docs/design/waiting-and-hand-off.md, "The chained hint").
-- Only while the request waits (in the line, or the lock reserved for it): a poke that comes
-- after its attempt took the lock, or after it was withdrawn, leaves no key behind.
--
-- KEYS: hint, requests, lock
-- ARGV: request, claim_ms
--
-- KEYS[1]  the hint: a list '<lock>:hint:<request>', in the lock's hash slot
-- KEYS[2]  the lock's line of requests
-- KEYS[3]  the lock hash
-- ARGV[1]  the request
-- ARGV[2]  the request's claim, in ms: the hint expires with it if nobody pops it
--
-- Returns  1 if it pushed, 0 if the request no longer waits

if not redis.call('ZSCORE', KEYS[2], ARGV[1]) and redis.call('HGET', KEYS[3], 'reserved') ~= ARGV[1] then
	return 0
end
redis.call('LPUSH', KEYS[1], '1')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
