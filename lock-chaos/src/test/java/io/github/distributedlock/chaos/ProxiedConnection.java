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

	/**
	 * Return what of a chunk from the client to forward: all of it, or, when it holds the
	 * command that an armed fault waits for, the bytes up to the end of that command;
	 * after that command, nothing.
	 */
	byte[] fromClient(byte[] chunk, AtomicReference<@Nullable ReplyDrop> armed) {
		if (this.drop != null) {
			return new byte[0];
		}
		int[] cut = { -1 };
		this.commands.scan(chunk, (index, end, args) -> {
			ReplyDrop waiting = armed.get();
			if (waiting != null && waiting.matches(args) && armed.compareAndSet(waiting, null)) {
				waiting.matched(args);
				this.dropReplyAt = index;
				this.drop = waiting;
				cut[0] = end;
				return false;
			}
			return true;
		});
		return (cut[0] < 0) ? chunk : Arrays.copyOf(chunk, cut[0]);
	}

	/**
	 * Return how much of a chunk from Redis to forward: {@code n} bytes, or
	 * {@code -n - 1} when the reply to drop is complete after the first {@code n} bytes
	 * (the replies to earlier commands), so that the connection is closed after
	 * forwarding them.
	 */
	int fromRedis(byte[] chunk) {
		long dropAt = this.dropReplyAt;
		// Before the reply to drop began, every byte belongs to earlier replies.
		int[] forward = { (dropAt >= 0 && this.replies.count() >= dropAt) ? 0 : chunk.length };
		boolean[] complete = { false };
		this.replies.scan(chunk, (index, end, args) -> {
			if (dropAt >= 0 && index == dropAt - 1) {
				forward[0] = end;
			}
			if (dropAt >= 0 && index == dropAt) {
				complete[0] = true;
				return false;
			}
			return true;
		});
		return complete[0] ? -forward[0] - 1 : forward[0];
	}

	/**
	 * Note that the reply to drop was dropped; the connection is closed next.
	 */
	void replyDropped() {
		ReplyDrop dropped = this.drop;
		if (dropped != null) {
			dropped.dropped();
		}
	}

}
