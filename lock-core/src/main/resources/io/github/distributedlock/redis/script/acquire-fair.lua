-- Take a lock in arrival order: only the first live waiter of the lock's queue may take it.
--
-- KEYS: lock, fence, readers, queue, queue_heartbeats
-- ARGV: owner, hold, lease_ms, reentrant, fence_idle_ms, waiter_timeout_ms, join
-- KEYS[1]  the lock hash
-- KEYS[2]  the fencing counter
-- KEYS[3]  the lock's readers (a sorted set scored by lease end, ms): live readers block it
-- KEYS[4]  the queue: a sorted set of waiting acquisitions ('<owner digest>|<hold>') scored by
--          arrival ticket
-- KEYS[5]  the queue heartbeats: the same members scored by when they count as dead (ms)
-- ARGV[1]  owner
-- ARGV[2]  the hold: this acquisition's id (hold_field in lib.lua)
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  '1' if the owner may take the lock again, '0' if that is a self-deadlock
-- ARGV[5]  idle time in milliseconds after which the fencing counter may vanish
-- ARGV[6]  waiter timeout in milliseconds: a waiter that stops calling is dropped after it
-- ARGV[7]  '1' to join the queue when it is not our turn, '0' to just try once
--
-- Returns {1, token}                    acquired (or taken by an earlier run of this attempt)
--         {0, holder token, ttl, rank}  not our turn; ttl: the holder's lease, or -1 if the lock
--                                       is free; rank: our place in the queue, from 0
--         {-1, token, pttl}             held by this owner, and not reentrant

local owner = digest(ARGV[1])
local hold = hold_field(ARGV[2])
-- One place per acquisition, not per owner: two acquisitions of one owner (a caller that waits
-- again before its last wait's leave ran, a custom owner shared by processes) keep their own, and
-- a late leave-fair.lua removes only its own (docs/design/waiting-and-hand-off.md, "Fair locks").
local waiter = owner .. '|' .. ARGV[2]
-- A custom owner ('custom:<name>', LockOwners.custom) is one owner in every process that names
-- it: any of its acquisitions may take the turn of another, which then joins its hold.
local custom = string.sub(ARGV[1], 1, 7) == 'custom:'
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'queued', hold)
if held[1] == owner then
	if held[4] then
		-- An earlier run of this very attempt took it (its reply was lost). The caller counts the
		-- lease from before this run: it must cover that.
		lengthen_lease(KEYS[1], ARGV[3])
		return {1, tonumber(held[2])}
	end
	if ARGV[4] ~= '1' then
		return {-1, tonumber(held[2]), redis.call('PTTL', KEYS[1])}
	end
	redis.call('HSET', KEYS[1], hold, '1')
	redis.call('HINCRBY', KEYS[1], 'holds', '1')
	-- It may have queued while another owner held the lock: its wait is over.
	redis.call('ZREM', KEYS[4], waiter)
	redis.call('ZREM', KEYS[5], waiter)
	-- Another hold never shortens the lease the outer hold relies on.
	lengthen_lease(KEYS[1], ARGV[3])
	return {1, tonumber(held[2])}
end

local nowMs, nowUs = server_time()

-- Waiters that stopped calling (they died or gave up) leave the queue.
drop_ended(KEYS[5], nowMs, KEYS[4])

local head = redis.call('ZRANGE', KEYS[4], '0', '0')[1]
local turn = not head or head == waiter or (custom and string.sub(head, 1, #owner + 1) == owner .. '|')
local readers = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. nowMs, '+inf', 'WITHSCORES')
if not held[1] and #readers == 0 and turn then
	local token = next_token(KEYS[2], ARGV[5], nowUs)
	redis.call('HSET', KEYS[1], 'owner', owner, 'holds', '1', 'token', token, hold, '1')
	redis.call('PEXPIRE', KEYS[1], ARGV[3])
	redis.call('ZREM', KEYS[4], waiter)
	redis.call('ZREM', KEYS[5], waiter)
	return {1, tonumber(token)}
end

local function blocked(rank)
	if held[1] then
		-- Held (by a plain hold too, whose release then tells us: mark_queued in lib.lua).
		mark_queued(KEYS[1], held[3])
		return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1]), rank}
	end
	if #readers > 0 then
		return {0, 0, tonumber(readers[#readers]) - nowMs, rank}
	end
	return {0, 0, -1, rank}
end

if ARGV[7] ~= '1' then
	return blocked(-1)
end
if not redis.call('ZSCORE', KEYS[4], waiter) then
	local lastTicket = redis.call('ZRANGE', KEYS[4], '-1', '-1', 'WITHSCORES')[2]
	redis.call('ZADD', KEYS[4], (tonumber(lastTicket) or 0) + 1, waiter)
end
local timeout = tonumber(ARGV[6])
redis.call('ZADD', KEYS[5], nowMs + timeout, waiter)
redis.call('PEXPIRE', KEYS[4], 2 * timeout)
redis.call('PEXPIRE', KEYS[5], 2 * timeout)
return blocked(redis.call('ZRANK', KEYS[4], waiter))
