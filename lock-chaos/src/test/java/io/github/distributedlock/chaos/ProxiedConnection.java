package io.github.distributedlock.chaos;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * A client's connection through a {@link ChaosProxy}, with the proxy's connection to
 * Redis: the commands and replies of each side, counted, and whether the reply to one of
 * its commands is to be dropped. Each direction is fed by one reader thread.
 */
final class ProxiedConnection {

	final AtomicBoolean pubSub = new AtomicBoolean();

	private final RespFrames commands = RespFrames.commands();

	private final RespFrames replies = RespFrames.replies();

	// The number of the command whose reply is dropped, once one matched.
	private volatile long dropReplyAt = -1;

	private volatile @Nullable ReplyDrop drop;

	// The fault whose command was never forwarded, once one was.
	private volatile @Nullable ReplyDrop unsent;

	// When the reply to the command that matched began to arrive.
	private volatile long replyStartNanos;

	/**
	 * Return what of a chunk from the client to forward: all of it, or, when it holds the
	 * command that an armed fault waits for, the bytes up to the end of that command;
	 * after that command, nothing.
	 */
	byte[] fromClient(byte[] chunk, AtomicReference<@Nullable ReplyDrop> armed) {
		ReplyDrop current = this.drop;
		if (current != null && !current.delivers()) {
			return new byte[0];
		}
		if (this.unsent != null) {
			return new byte[0];
		}
		int[] cut = { -1 };
		// Where the command that ends next began, within this chunk.
		int[] start = { 0 };
		this.commands.scan(chunk, (index, end, args) -> {
			ReplyDrop waiting = (this.drop == null) ? armed.get() : null;
			if (waiting != null && waiting.matches(args) && armed.compareAndSet(waiting, null)) {
				waiting.matched(args);
				if (waiting.unsent()) {
					// Forward what came before it, and nothing more.
					this.unsent = waiting;
					cut[0] = start[0];
					return false;
				}
				this.replyStartNanos = 0;
				this.dropReplyAt = index;
				this.drop = waiting;
				if (waiting.delivers()) {
					// Delayed, not dropped: what the client sends next goes on to Redis.
					return true;
				}
				cut[0] = end;
				return false;
			}
			start[0] = end;
			return true;
		});
		return (cut[0] < 0) ? chunk : Arrays.copyOf(chunk, cut[0]);
	}

	/**
	 * Return the fault whose command was not forwarded, once one was: the connection is
	 * then held and closed.
	 */
	@Nullable ReplyDrop unsent() {
		return this.unsent;
	}

	/**
	 * Return what to do with a chunk from Redis: forward its first {@link Forward#now}
	 * bytes at once (the replies to earlier commands); with a fault, do with the rest
	 * what the fault says once it is held back long enough.
	 */
	Forward fromRedis(byte[] chunk) {
		long dropAt = this.dropReplyAt;
		ReplyDrop fault = this.drop;
		if (dropAt < 0 || fault == null) {
			this.replies.scan(chunk, (index, end, args) -> true);
			return new Forward(chunk.length, null, false, 0);
		}
		// Before the reply to drop began, every byte belongs to earlier replies.
		boolean startedBefore = this.replies.count() >= dropAt;
		int[] start = { startedBefore ? 0 : chunk.length };
		boolean[] complete = { false };
		this.replies.scan(chunk, (index, end, args) -> {
			if (index == dropAt - 1) {
				start[0] = end;
			}
			if (index == dropAt) {
				complete[0] = true;
				// A delayed reply is delivered, and the replies after it are counted.
				return fault.delivers();
			}
			return true;
		});
		boolean started = startedBefore || start[0] < chunk.length;
		if (started && this.replyStartNanos == 0) {
			this.replyStartNanos = System.nanoTime();
		}
		if (fault.delivers() && started) {
			// Delivered late, with everything after it; the connection can take another
			// fault.
			this.dropReplyAt = -1;
			this.drop = null;
			return new Forward(start[0], fault, false, this.replyStartNanos);
		}
		return new Forward(start[0], fault.delivers() ? null : fault, complete[0], this.replyStartNanos);
	}

	/**
	 * What to do with a chunk from Redis.
	 *
	 * @param now how many of its bytes to forward at once
	 * @param fault the fault that holds back the rest, or {@code null} if there is no
	 * rest
	 * @param close whether to close the connection once the fault's hold is over (the
	 * reply to drop is complete)
	 * @param replyNanos when the reply the fault hit began to arrive
	 */
	record Forward(int now, @Nullable ReplyDrop fault, boolean close, long replyNanos) {

		/**
		 * Return when the held-back part is due: the reply's arrival plus the fault's
		 * hold.
		 */
		long dueNanos() {
			return this.replyNanos + ((this.fault != null) ? this.fault.hold().toNanos() : 0);
		}

	}

	/**
	 * Note that the reply to drop was dropped; the connection is closed next.
	 */
	void replyDropped(ReplyDrop fault) {
		fault.dropped();
	}

}
