package io.github.distributedlock.redis.script;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;

/**
 * Translates what a Lettuce future fails with into Spring Data Redis's exceptions, as its
 * connections translate a blocking call's. Only loaded where Lettuce sends.
 */
public final class LettuceExceptions {

	private LettuceExceptions() {
	}

	public static DataAccessException translate(Throwable failure) {
		String message = String.valueOf(failure.getMessage());
		if (failure instanceof RedisCommandTimeoutException) {
			return new QueryTimeoutException(message, failure);
		}
		if (failure instanceof RedisConnectionException) {
			return new RedisConnectionFailureException(message, failure);
		}
		return new RedisSystemException(message, failure);
	}

}
