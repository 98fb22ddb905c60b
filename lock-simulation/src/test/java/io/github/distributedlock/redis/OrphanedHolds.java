package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

import io.github.distributedlock.redis.driver.UndoTiming;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * The oracle of holds that no client counts on: an orphaned hold ends as soon as Redis
 * answers again (docs/guarantees.md: an acquisition whose reply never came "releases what
 * that attempt took, by its hold id, as soon as Redis answers again").
 * <p>
 * A hold is orphaned when its client hears that an attempt or a release of it got no
 * reply ({@link LostReplies}): the attempt may have taken it, or the release never
 * reached Redis, and the client counts on it no more. Once Redis next answers that client
 * (it reads a reply), the hold must be gone from Redis within {@link #BOUND_NANOS}: the
 * driver's undo retry ({@code DriverCommands.UNDO_RETRY_NANOS}) and two round trips, one
 * to find the hold and one to release it. The bound counts from the latest time the
 * client hears of a command about the hold (it carries the hold's id) if that is later:
 * such a command whose reply is lost, or read after a pause, is Redis not answering that
 * client yet. Time while Redis stalls does not count.
 * <p>
 * An orphan first seen gone is not watched again: a lost attempt that runs late, after
 * its undo, takes a lock it finds free for nobody, which the guarantees leave to its
 * lease or its thread's next acquisition ("A late attempt" in
 * docs/design/waiting-and-hand-off.md), and a failover may bring back a hold that was
 * released.
 */
final class OrphanedHolds {

	/**
	 * A round trip in the simulation: a command and its reply, each within 5 ms
	 * ({@code LockSimulation.network()}).
	 */
	static final long ROUND_TRIP_NANOS = 2 * 5 * LockSimulation.MS;

	/**
	 * How long an orphaned hold may stay in Redis once Redis answers its client again.
	 */
	static final long BOUND_NANOS = UndoTiming.retryNanos() + 2 * ROUND_TRIP_NANOS;

	private final LostState state;

	private final Consumer<String> violated;

	// Whether a client counts on a hold (by the client's name and the hold's id).
	private final BiPredicate<String, String> countedOn;

	private final List<Orphan> orphans = new ArrayList<>();

	// When Redis stalled: the intervals, in order, merged where they overlap.
	private final List<long[]> stalls = new ArrayList<>();

	private int watched;

	private int ended;

	/**
	 * @param state reads where a hold's state in Redis ends
	 * @param countedOn whether a client counts on a hold: a handle not yet released, an
	 * acquisition or a re-entry still under way
	 */
	OrphanedHolds(LostState state, BiPredicate<String, String> countedOn, Consumer<String> violated) {
		this.state = state;
		this.countedOn = countedOn;
		this.violated = violated;
	}

	/**
	 * A client will hear of one of its commands at {@code atNanos}: a reply, or a failure
	 * once its command timeout has passed. An attempt's or a release's failure orphans
	 * the hold it carries; any command about an orphaned hold delays its bound until
	 * then.
	 * @param operation the port's name of the command
	 * @param what what it is, for a violation's message
	 */
	void hears(String client, LostState.Kind kind, String owner, String operation, String what, ScriptCall call,
			long atNanos, boolean replies) {
		String hold = holdOf(call);
		if (hold == null) {
			return;
		}
		for (Orphan orphan : this.orphans) {
			if (orphan.client.equals(client) && orphan.target.hold().equals(hold)) {
				orphan.heardNanos = Math.max(orphan.heardNanos, atNanos);
				if (!replies) {
					orphan.failures.add(what + " at " + LockSimulation.at(atNanos) + " ms");
				}
				return;
			}
		}
		if (!replies && (operation.equals("acquire") || operation.equals("release"))) {
			Orphan orphan = new Orphan(client, new LostState.Target(kind, client, owner, hold, 0, true, null), atNanos);
			orphan.failures.add(what + " at " + LockSimulation.at(atNanos) + " ms");
			this.orphans.add(orphan);
			this.watched++;
		}
	}

	/**
	 * A replica check ended without confirming a grant ({@code ReplicaWait}), which then
	 * releases it: the client counts on it no more, and it must end as an orphan does
	 * (unless a release of it already orphaned it).
	 * @param nowNanos when the client heard of the end: the hold is watched from then,
	 * and once seen gone no more (a failover may bring back its release's write)
	 * @param boundFromNanos when its bound starts at the earliest: later than now if the
	 * check goes on after the end (one cancelled or ended at the call's bound releases
	 * the hold once it ends)
	 * @param answered whether Redis answered the check, as a refusal says
	 */
	void unconfirmed(String client, LostState.Kind kind, String owner, String hold, String why, long nowNanos,
			long boundFromNanos, boolean answered) {
		for (Orphan orphan : this.orphans) {
			if (orphan.client.equals(client) && orphan.target.hold().equals(hold)) {
				// A release the check sent got no reply: watched as such.
				return;
			}
		}
		Orphan orphan = new Orphan(client, new LostState.Target(kind, client, owner, hold, 0, true, null), nowNanos);
		orphan.heardNanos = boundFromNanos;
		orphan.failures.add("its replica check (" + why + ") at " + LockSimulation.at(nowNanos) + " ms");
		if (answered) {
			orphan.answeredNanos = nowNanos;
		}
		this.orphans.add(orphan);
		this.watched++;
	}

	/**
	 * The client's port closed (its template stopped) before the client hears that a
	 * release of the hold got no reply: the release is not sent again, and the hold ends
	 * with its lease, as the guarantees leave a closed template's holds (the client's run
	 * checks that nothing renews it).
	 */
	void leftToLease(String client, String hold) {
		for (Orphan orphan : this.orphans) {
			if (orphan.client.equals(client) && orphan.target.hold().equals(hold)) {
				orphan.leftToLease = true;
			}
		}
	}

	/**
	 * A client read a reply: Redis answers it again.
	 */
	void answered(String client, long nowNanos) {
		for (Orphan orphan : this.orphans) {
			if (orphan.client.equals(client) && orphan.answeredNanos < 0 && nowNanos - orphan.failedNanos >= 0) {
				orphan.answeredNanos = nowNanos;
			}
		}
	}

	/**
	 * Redis stalls from now until {@code untilNanos}.
	 */
	void stalled(long nowNanos, long untilNanos) {
		int last = this.stalls.size() - 1;
		if (last >= 0 && this.stalls.get(last)[1] - nowNanos >= 0) {
			this.stalls.get(last)[1] = Math.max(this.stalls.get(last)[1], untilNanos);
		}
		else {
			this.stalls.add(new long[] { nowNanos, untilNanos });
		}
	}

	/**
	 * Check every orphaned hold after an event: one still in Redis, or gone since the
	 * last look, later than its bound is a violation.
	 */
	void check(long nowNanos) {
		for (Iterator<Orphan> each = this.orphans.iterator(); each.hasNext();) {
			Orphan orphan = each.next();
			if (nowNanos - orphan.failedNanos < 0 || this.countedOn.test(orphan.client, orphan.target.hold())) {
				continue;
			}
			long end = endNanos(orphan.target, nowNanos);
			if (end < 0) {
				// Gone: at this event, or when its lease ran out since the last look.
				long goneAt = (orphan.endNanos >= 0) ? Math.min(orphan.endNanos, nowNanos) : nowNanos;
				each.remove();
				this.ended++;
				if (overdue(orphan, goneAt)) {
					return;
				}
				continue;
			}
			orphan.endNanos = end;
			if (overdue(orphan, nowNanos)) {
				return;
			}
		}
	}

	/**
	 * The run is over: nothing will end the orphans left but their leases.
	 */
	void finish(long nowNanos) {
		check(nowNanos);
		for (Orphan orphan : this.orphans) {
			if (orphan.endNanos >= 0 && overdue(orphan, orphan.endNanos)) {
				return;
			}
		}
	}

	/**
	 * Return how many holds were orphaned, and how many of them were seen to end.
	 */
	int[] counts() {
		return new int[] { this.watched, this.ended };
	}

	private boolean overdue(Orphan orphan, long atNanos) {
		if (orphan.answeredNanos < 0 || orphan.leftToLease) {
			return false;
		}
		long from = Math.max(orphan.answeredNanos, orphan.heardNanos);
		long waited = atNanos - from - stalledWithin(from, atNanos);
		if (waited <= BOUND_NANOS + LockSimulation.REDIS_MS_SLACK) {
			return false;
		}
		this.violated.accept(String.format(
				"%s's hold %s (%s) stayed in Redis until %s ms, after no reply came to %s, and Redis answered %s "
						+ "again at %s ms (the last command about it was heard at %s ms): an orphaned hold ends as "
						+ "soon as Redis answers again (within %.0f ms)",
				orphan.client, orphan.target.hold(), orphan.target.kind().name().toLowerCase(),
				LockSimulation.at(atNanos), String.join(", then ", orphan.failures), orphan.client,
				LockSimulation.at(orphan.answeredNanos), LockSimulation.at(orphan.heardNanos), BOUND_NANOS / 1e6));
		return true;
	}

	private long stalledWithin(long fromNanos, long toNanos) {
		long stalled = 0;
		for (long[] stall : this.stalls) {
			long start = Math.max(fromNanos, stall[0]);
			long end = Math.min(toNanos, stall[1]);
			stalled += Math.max(0, end - start);
		}
		return stalled;
	}

	/**
	 * Return when the hold's state in Redis ends (its lease, or its owner's read lease or
	 * its permit's), or -1 if it is not there.
	 */
	private long endNanos(LostState.Target target, long nowNanos) {
		long endMillis = this.state.ends(List.of(target))[0];
		if (endMillis < 0 || endMillis == Long.MAX_VALUE) {
			return (endMillis < 0) ? -1 : Long.MAX_VALUE;
		}
		long end = endMillis * LockSimulation.MS;
		return (end - nowNanos > 0) ? end : -1;
	}

	/**
	 * Return the hold a script call is about, or {@code null} (a withdrawal's hold is
	 * {@code ""}).
	 */
	static @Nullable String holdOf(ScriptCall call) {
		ScriptArgs args = call.args();
		String hold = null;
		if (args instanceof ScriptArgs.Acquire acquire) {
			hold = acquire.hold();
		}
		else if (args instanceof ScriptArgs.AcquireRead read) {
			hold = read.hold();
		}
		else if (args instanceof ScriptArgs.AcquirePermit permit) {
			hold = permit.hold();
		}
		else if (args instanceof ScriptArgs.AcquireFair fair) {
			hold = fair.hold();
		}
		else if (args instanceof ScriptArgs.Release release) {
			hold = release.hold();
		}
		else if (args instanceof ScriptArgs.ReleaseMember member) {
			hold = member.hold();
		}
		else if (args instanceof ScriptArgs.ReleaseFair fair) {
			hold = fair.hold();
		}
		return (hold == null || hold.isEmpty()) ? null : hold;
	}

	/**
	 * A hold whose client heard, at {@code failedNanos}, that an attempt or a release of
	 * it got no reply.
	 */
	private static final class Orphan {

		private final String client;

		private final LostState.Target target;

		// The commands about it that got no reply, and when their failure was heard.
		private final List<String> failures = new ArrayList<>();

		private final long failedNanos;

		// When Redis first answered the client after that, or -1.
		private long answeredNanos = -1;

		// The latest time the client hears of a command about the hold.
		private long heardNanos;

		// Where its state in Redis ended at the last look, or -1 before.
		private long endNanos = -1;

		// Whether its client's port closed before a release of it could be sent again.
		private boolean leftToLease;

		Orphan(String client, LostState.Target target, long failedNanos) {
			this.client = client;
			this.target = target;
			this.failedNanos = failedNanos;
			this.heardNanos = failedNanos;
		}

	}

}
