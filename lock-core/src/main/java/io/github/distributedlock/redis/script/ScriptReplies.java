package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquireResult;
import org.jspecify.annotations.Nullable;

/**
 * Reads the scripts' replies.
 */
public final class ScriptReplies {

	private ScriptReplies() {
	}

	public static AcquireResult acquireResult(LockSpec spec, @Nullable List<?> reply) {
		if (reply == null || reply.size() < 2) {
			throw new LockAccessException(spec.name(), "unexpected reply from the acquire script: " + reply, null);
		}
		int status = ((Number) reply.get(0)).intValue();
		long token = ((Number) reply.get(1)).longValue();
		if (status == 1) {
			// Acquired: a third element is the block of tokens the hold got.
			int block = (reply.size() > 2) ? ((Number) reply.get(2)).intValue() : 1;
			return new AcquireResult(status, token, spec.leaseMillis(), -1, block);
		}
		long ttl = (reply.size() > 2) ? ((Number) reply.get(2)).longValue() : spec.leaseMillis();
		int rank = (reply.size() > 3) ? ((Number) reply.get(3)).intValue() : -1;
		return new AcquireResult(status, token, ttl, rank);
	}

	public static MultiAcquireResult multiAcquireResult(LockName first, int locks, @Nullable List<?> reply) {
		if (reply == null || reply.isEmpty()) {
			throw new LockAccessException(first, "unexpected reply from the multi-lock script: " + reply, null);
		}
		int status = ((Number) reply.get(0)).intValue();
		if (status == 1) {
			long[] tokens = new long[locks];
			for (int i = 0; i < tokens.length; i++) {
				tokens[i] = ((Number) reply.get(i + 1)).longValue();
			}
			return new MultiAcquireResult(1, -1, tokens, -1);
		}
		return new MultiAcquireResult(status, ((Number) reply.get(1)).intValue() - 1, new long[0],
				((Number) reply.get(3)).longValue());
	}

}
