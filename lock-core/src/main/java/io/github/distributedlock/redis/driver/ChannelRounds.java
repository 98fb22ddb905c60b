package io.github.distributedlock.redis.driver;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A line's channel confirmations, counted in rounds: once each of its channels is
 * confirmed, all are subscribed, and again after each reconnect. A subscription
 * connection shared by several lines may confirm every line's channels to each of them: a
 * confirmation of another line's channel, or of a channel already confirmed in this
 * round, counts for nothing. A line that subscribes a channel another line has confirms
 * it to both, which can end a round of the other: one extra attempt, never a missed one.
 * Thread-safe.
 */
public final class ChannelRounds {

	private final Set<String> channels;

	// Guarded by this.
	private final Set<String> pending;

	private int rounds;

	public ChannelRounds(List<String> channels) {
		this.channels = Set.copyOf(channels);
		this.pending = new HashSet<>(this.channels);
	}

	/**
	 * Count a channel's confirmation.
	 * @return the number of full rounds so far if this confirmation ended one, else 0
	 */
	public synchronized int confirmed(byte[] channel) {
		if (!this.pending.remove(new String(channel, StandardCharsets.UTF_8)) || !this.pending.isEmpty()) {
			return 0;
		}
		this.pending.addAll(this.channels);
		return ++this.rounds;
	}

}
