package io.github.distributedlock.simulation;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A replica that lags its master by a given number of writes, for failovers that lose
 * them. Each command or script that changed keys is one write, shipped as the keys it
 * left (Redis replicates a script's effects in one transaction, so a replica never holds
 * half a script). The replica applies a write once more than {@link #lag(int, Keyspace)
 * lag} newer ones have followed it; a failover promotes what it has applied and loses the
 * rest. A replica that lags by nothing is the master's keys themselves, so it costs
 * nothing per call. What a replica does on its own (refusing writes, hiding expired keys
 * on reads) is not modelled: it is only ever read by being promoted.
 */
final class Replica {

	private @Nullable Keyspace keyspace;

	private final Deque<List<Keyspace.Write>> backlog;

	private int lag;

	// How many writes the master shipped, the applied and the lacking ones.
	private long shipped;

	Replica() {
		this(null, new ArrayDeque<>(), 0, 0);
	}

	private Replica(@Nullable Keyspace keyspace, Deque<List<Keyspace.Write>> backlog, int lag, long shipped) {
		this.keyspace = keyspace;
		this.backlog = backlog;
		this.lag = lag;
		this.shipped = shipped;
	}

	/**
	 * Ship what the last command or script wrote on the master to the replica.
	 */
	void record(Keyspace master) {
		if (this.keyspace == null) {
			if (master.hasWrites()) {
				this.shipped++;
			}
			master.forgetWrites();
			return;
		}
		List<Keyspace.Write> write = master.takeWrites();
		if (!write.isEmpty()) {
			this.shipped++;
			this.backlog.add(write);
			catchUp();
		}
	}

	/**
	 * Set how many of the newest writes the replica lacks.
	 */
	void lag(int writes, Keyspace master) {
		if (writes < 0) {
			throw new IllegalArgumentException("A replica lags by zero or more writes, not " + writes);
		}
		this.lag = writes;
		if (writes == 0) {
			this.keyspace = null;
			this.backlog.clear();
		}
		else if (this.keyspace == null) {
			this.keyspace = master.copy();
		}
		else {
			catchUp();
		}
	}

	/**
	 * Return how many writes the master shipped so far.
	 */
	long shipped() {
		return this.shipped;
	}

	/**
	 * Return how many writes the replica lacks now.
	 */
	int behind() {
		return this.backlog.size();
	}

	/**
	 * Make the master's keys the replica's, losing the writes it lacked.
	 * @return how many writes were lost
	 */
	int promoteInto(Keyspace master) {
		if (this.keyspace == null) {
			return 0;
		}
		int lost = this.backlog.size();
		this.backlog.clear();
		master.replaceWith(this.keyspace);
		master.forgetWrites();
		return lost;
	}

	/**
	 * Return the keys the replica will hold once it has applied every write it lacks, or
	 * {@code null} if it lags by nothing (it is the master's keys).
	 */
	@Nullable Keyspace caughtUp() {
		if (this.keyspace == null) {
			return null;
		}
		Keyspace keys = this.keyspace.copy();
		this.backlog.forEach(keys::apply);
		return keys;
	}

	Replica copy() {
		return new Replica((this.keyspace != null) ? this.keyspace.copy() : null, new ArrayDeque<>(this.backlog),
				this.lag, this.shipped);
	}

	/**
	 * Apply every write the replica lacks, as one that acknowledges a {@code WAIT} has:
	 * it lags again as newer writes come.
	 */
	void catchUpAll() {
		Keyspace keys = this.keyspace;
		while (keys != null && !this.backlog.isEmpty()) {
			keys.apply(this.backlog.remove());
		}
	}

	private void catchUp() {
		Keyspace keys = this.keyspace;
		while (keys != null && this.backlog.size() > this.lag) {
			keys.apply(this.backlog.remove());
		}
	}

}
