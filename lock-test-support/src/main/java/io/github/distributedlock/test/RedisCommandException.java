package io.github.distributedlock.test;

/**
 * An error reply from Redis, such as {@code ERR}, {@code WRONGTYPE} or {@code NOSCRIPT},
 * carrying the server's message.
 */
public class RedisCommandException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception for an error reply.
	 * @param message the error message exactly as the server sent it
	 */
	public RedisCommandException(String message) {
		super(message);
	}

	/**
	 * Return the error code, the first word of the server's message (for example
	 * {@code NOSCRIPT}).
	 * @return the error code
	 */
	public String errorCode() {
		String message = String.valueOf(getMessage());
		int space = message.indexOf(' ');
		return (space < 0) ? message : message.substring(0, space);
	}

}
