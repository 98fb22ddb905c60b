package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts and the few plain commands, translating Redis errors into
 * {@link LockAccessException}s that name the lock.
 */
final class LockCommands {

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ACQUIRE = script("acquire.lua", List.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	private static final RedisScript<Long> EXTEND = script("extend.lua", Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ACQUIRE_ALL = script("acquire-all.lua", List.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> RENEW = script("renew.lua", List.class);

	private static final RedisScript<Long> FORCE_RELEASE = script("force-release.lua", Long.class);

	private final StringRedisTemplate redis;

	private final String fenceIdleMillis;

	LockCommands(StringRedisTemplate redis, long fenceIdleMillis) {
		this.redis = redis;
		this.fenceIdleMillis = Long.toString(fenceIdleMillis);
	}

	private static <T> RedisScript<T> script(String name, Class<T> resultType) {
		return RedisScript.of(new ClassPathResource(name, LockCommands.class), resultType);
	}

	AcquireResult acquire(LockSpec spec, String owner) {
		List<?> reply;
		try {
			reply = this.redis.execute(ACQUIRE, List.of(spec.lockKey(), spec.fenceKey()), owner,
					Long.toString(spec.leaseMillis()), spec.reentrant() ? "1" : "0", this.fenceIdleMillis);
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "acquire", ex);
		}
		if (reply == null || reply.size() < 2) {
			throw new LockAccessException(spec.name(), "unexpected reply from the acquire script: " + reply, null);
		}
		int status = ((Number) reply.get(0)).intValue();
		long token = ((Number) reply.get(1)).longValue();
		long ttl = (reply.size() > 2) ? ((Number) reply.get(2)).longValue() : spec.leaseMillis();
		return new AcquireResult(status, token, ttl);
	}

	/**
	 * Take several locks in one script, all or nothing.
	 */
	MultiAcquireResult acquireAll(List<LockSpec> specs, String owner, boolean reentrant) {
		List<String> keys = new java.util.ArrayList<>(specs.size() * 2);
		Object[] args = new Object[3 + specs.size()];
		args[0] = owner;
		args[1] = reentrant ? "1" : "0";
		args[2] = this.fenceIdleMillis;
		for (int i = 0; i < specs.size(); i++) {
			keys.add(specs.get(i).lockKey());
			keys.add(specs.get(i).fenceKey());
			args[3 + i] = Long.toString(specs.get(i).leaseMillis());
		}
		List<?> reply;
		try {
			reply = this.redis.execute(ACQUIRE_ALL, keys, args);
		}
		catch (DataAccessException ex) {
			throw failure(specs.get(0).name(), "acquire", ex);
		}
		if (reply == null || reply.isEmpty()) {
			throw new LockAccessException(specs.get(0).name(), "unexpected reply from the multi-lock script: " + reply,
					null);
		}
		int status = ((Number) reply.get(0)).intValue();
		if (status == 1) {
			long[] tokens = new long[specs.size()];
			for (int i = 0; i < tokens.length; i++) {
				tokens[i] = ((Number) reply.get(i + 1)).longValue();
			}
			return new MultiAcquireResult(1, -1, tokens, -1);
		}
		return new MultiAcquireResult(status, ((Number) reply.get(1)).intValue() - 1, new long[0],
				((Number) reply.get(3)).longValue());
	}

	/**
	 * Release one hold.
	 * @return holds left, or -1 if the lock was gone, -2 if someone else held it
	 */
	long release(LockSpec spec, String owner, long token) {
		try {
			Long result = this.redis.execute(RELEASE, List.of(spec.lockKey(), spec.releaseChannel()), owner,
					Long.toString(token));
			return (result != null) ? result : -1;
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "release", ex);
		}
	}

	/**
	 * Set a new lease.
	 * @return 1 if extended, -1 if the lock was gone, -2 if someone else held it
	 */
	long extend(LockSpec spec, String owner, long token, long leaseMillis) {
		try {
			Long result = this.redis.execute(EXTEND, List.of(spec.lockKey()), owner, Long.toString(token),
					Long.toString(leaseMillis));
			return (result != null) ? result : -1;
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "extend", ex);
		}
	}

	/**
	 * Renew the leases of several holds in one script.
	 * @return for each hold: 1 renewed, -1 gone, -2 held by someone else
	 */
	List<Long> renew(List<RedisLockHandle> holds) {
		List<String> keys = new java.util.ArrayList<>(holds.size());
		Object[] args = new Object[holds.size() * 3];
		for (int i = 0; i < holds.size(); i++) {
			RedisLockHandle hold = holds.get(i);
			keys.add(hold.spec().lockKey());
			args[3 * i] = hold.owner();
			args[3 * i + 1] = Long.toString(hold.fencingToken());
			args[3 * i + 2] = Long.toString(hold.spec().leaseMillis());
		}
		List<?> reply;
		try {
			reply = this.redis.execute(RENEW, keys, args);
		}
		catch (DataAccessException ex) {
			throw failure(holds.get(0).name(), "renew", ex);
		}
		if (reply == null || reply.size() != holds.size()) {
			throw new LockAccessException(holds.get(0).name(), "unexpected reply from the renew script: " + reply,
					null);
		}
		return reply.stream().map((value) -> ((Number) value).longValue()).toList();
	}

	boolean forceRelease(LockName name, String lockKey) {
		try {
			Long result = this.redis.execute(FORCE_RELEASE, List.of(lockKey, LockKeys.releaseChannel(lockKey)));
			return result != null && result == 1;
		}
		catch (DataAccessException ex) {
			throw failure(name, "force-release", ex);
		}
	}

	boolean exists(LockName name, String lockKey) {
		try {
			return Boolean.TRUE.equals(this.redis.hasKey(lockKey));
		}
		catch (DataAccessException ex) {
			throw failure(name, "check", ex);
		}
	}

	/**
	 * Return the owner and fencing token stored in the lock, or {@code null} if it is free.
	 */
	@Nullable List<@Nullable String> ownerAndToken(LockName name, String lockKey) {
		try {
			List<Object> values = this.redis.opsForHash().multiGet(lockKey, List.of("owner", "token"));
			if (values.isEmpty() || values.get(0) == null) {
				return null;
			}
			return values.stream().map((value) -> (value != null) ? value.toString() : null).toList();
		}
		catch (DataAccessException ex) {
			throw failure(name, "check", ex);
		}
	}

	private static LockAccessException failure(LockName name, String operation, DataAccessException ex) {
		return new LockAccessException(name, "Redis failed during " + operation + ": " + ex.getMessage(), ex);
	}

}
