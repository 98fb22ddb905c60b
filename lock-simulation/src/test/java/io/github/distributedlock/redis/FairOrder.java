package io.github.distributedlock.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * Checks that a fair lock goes to its waiters in the order they joined its queue. An
 * acquisition joins when the first of its attempts that queued ran in Redis (a reply
 * {@code {0, holder, ttl, rank}} with a rank), and it waits until it ends: held, run out
 * or stopped. When an attempt of an acquisition is granted a new hold in Redis (the first
 * run that grants it), no other acquisition of another owner may still be waiting that
 * joined before it (or at all, if the granted one never joined: it took a free lock on
 * its first try).
 * <p>
 * What it cannot check: the order in runs with shared custom owners (a client joins its
 * owner's hold whenever that owner holds the lock, whoever waits, and its reply does not
 * tell such a join from a new hold), and an order Redis was right to break: a waiter that
 * stopped calling for the fair waiter timeout is dropped from the queue. So the
 * simulation checks it only in runs without shared custom owners, and where no waiter can
 * miss its heartbeat for that long.
 */
final class FairOrder {

	// The acquisitions waiting, by client: when they joined the queue, or -1 if not yet.
	private final Map<String, long[]> waiting = new LinkedHashMap<>();

	private final Map<String, String> owners = new LinkedHashMap<>();

	private int checked;

	/**
	 * An acquisition starts.
	 */
	void started(String client, String owner) {
		this.waiting.put(client, new long[] { -1 });
		this.owners.put(client, owner);
	}

	/**
	 * An attempt of the client's acquisition ran in Redis at {@code ranNanos} and joined
	 * the queue (or kept its place there).
	 */
	void queued(String client, long ranNanos) {
		long[] joined = this.waiting.get(client);
		if (joined != null && joined[0] < 0) {
			joined[0] = ranNanos;
		}
	}

	/**
	 * The client's acquisition ended, held or not, as its driver ended it: its caller may
	 * hear of that later, once what it sent settled (seed 2420: a waiter that had given
	 * up, its leave run in Redis, was still taken to wait).
	 */
	void ended(String client) {
		this.waiting.remove(client);
	}

	/**
	 * An attempt of the client's acquisition was granted a new hold in Redis at
	 * {@code ranNanos}.
	 * @param waits whether a client's acquisition still waits: neither ended nor stopped
	 * (a stopped one may still be in the queue until its leave runs)
	 * @return what broke the order, or {@code null}
	 */
	@Nullable String granted(String client, long ranNanos, Predicate<String> waits) {
		long[] joined = this.waiting.get(client);
		if (joined == null) {
			return null;
		}
		// Its place is taken: it waits no more, whenever its reply is read.
		this.waiting.remove(client);
		this.checked++;
		String owner = this.owners.get(client);
		for (Map.Entry<String, long[]> other : this.waiting.entrySet()) {
			long otherJoined = other.getValue()[0];
			if (other.getKey().equals(client) || otherJoined < 0 || this.owners.get(other.getKey()).equals(owner)
					|| !waits.test(other.getKey())) {
				continue;
			}
			if (joined[0] < 0 || otherJoined - joined[0] < 0) {
				return client + " was granted the fair lock at " + at(ranNanos) + " ms, "
						+ ((joined[0] < 0) ? "without joining the queue"
								: "having joined the queue at " + at(joined[0]) + " ms")
						+ ", but " + other.getKey() + ", who joined at " + at(otherJoined) + " ms, still waits";
			}
		}
		return null;
	}

	/**
	 * Return how many grants were checked.
	 */
	int checked() {
		return this.checked;
	}

	private static String at(long nanos) {
		return String.format("%.3f", (nanos - 1_000_000 * LockSimulation.MS) / 1e6);
	}

}
