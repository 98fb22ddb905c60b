package io.github.distributedlock.redis.driver;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * One script's answer, as a port tells it: its reply or its failure (the command
 * timeout's), whichever comes first, once. One that comes on the sending thread before
 * the send returned (a reply already in, a failure to send) is told elsewhere, since no
 * port answers inside the call. Thread-safe.
 */
public final class Answer implements Completion<@Nullable Object> {

	private final Completion<@Nullable Object> reply;

	private final @Nullable Thread sender;

	private final Executor elsewhere;

	private final AtomicBoolean answered = new AtomicBoolean();

	private volatile boolean sent;

	/**
	 * @param sender the thread that sends, which must not be told inside the send, or
	 * {@code null} for none
	 * @param elsewhere where an answer that came inside the send is told
	 */
	public Answer(Completion<@Nullable Object> reply, @Nullable Thread sender, Executor elsewhere) {
		this.reply = reply;
		this.sender = sender;
		this.elsewhere = elsewhere;
	}

	/**
	 * Note that the send returned: answers are told where they come from now on.
	 */
	public void sent() {
		this.sent = true;
	}

	/**
	 * Return whether the answer was told, or is being told.
	 */
	public boolean isAnswered() {
		return this.answered.get();
	}

	@Override
	public void granted(@Nullable Object result) {
		tell(() -> this.reply.granted(result));
	}

	@Override
	public void failed(Throwable error) {
		tell(() -> this.reply.failed(error));
	}

	private void tell(Runnable told) {
		if (!this.answered.compareAndSet(false, true)) {
			return;
		}
		if (!this.sent && Thread.currentThread() == this.sender) {
			this.elsewhere.execute(told);
		}
		else {
			told.run();
		}
	}

}
