package io.github.distributedlock.simulation;

/**
 * An error reply of a command, thrown by the model's commands and turned into an
 * {@link Replies.ErrorReply} (or a Lua error, inside {@code redis.call}). It carries no
 * stack trace: it is a reply, not a fault of the model.
 */
final class CommandError extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String reply;

	/**
	 * @param message the error as Redis words it, its code first ({@code ERR ...},
	 * {@code WRONGTYPE ...})
	 */
	CommandError(String message) {
		super(message, null, false, false);
		this.reply = message;
	}

	/**
	 * Return the error as Redis words it.
	 */
	String reply() {
		return this.reply;
	}

	static CommandError wrongType() {
		return new CommandError(Replies.WRONGTYPE);
	}

	static CommandError syntax() {
		return new CommandError("ERR syntax error");
	}

}
