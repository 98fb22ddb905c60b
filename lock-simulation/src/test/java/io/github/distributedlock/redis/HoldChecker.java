package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.distributedlock.redis.core.LockOwners;
import org.jspecify.annotations.Nullable;

/**
 * Checks the history of one lock's holds: no two owners whose holds overlap, unless both
 * read, and fencing tokens that only grow. A hold runs from the reply that granted it
 * until the holder released it or its deadline ({@code t0 + lease}, as the handle counts
 * it) passed, whichever came first: a holder that works past its deadline is told its
 * lease is lost, so no overlap after it counts. No grant may come after its own deadline:
 * its caller would start work on a lease that is already over. A renewal, an extension or
 * a nested hold moves a live hold's deadline later; the nested hold's release takes its
 * lease back.
 * <p>
 * Tokens, as the guarantees promise them: every new holder gets a token larger than every
 * earlier holder's. Holds seen in the order their grants were read: a writer's token is
 * larger than every token granted before it (readers' included), but that of its own
 * owner's hold it re-enters; a reader's is larger than every writer's granted before it,
 * and new (a reader's grant always takes the next token). Readers granted side by side
 * may have their replies read in another order than Redis granted them, so their tokens
 * are not compared with each other's order.
 * <p>
 * Permits of a semaphore of N: never more than N permit holds at once, whoever their
 * owners (each hold is a permit of its own, a shared custom owner's too). Tokens: each
 * grant takes a new token (the guarantees: every new holder gets a token larger than
 * every earlier holder's), so a permit's token was never granted before, and is larger
 * than every token whose grant was read before its attempt was sent (that grant ran in
 * Redis first); permits granted side by side may have their replies read in any order.
 * <p>
 * A hold a fault lost in Redis ({@link LostState}: a failover to a lagging replica, an
 * eviction) is marked lost: a second holder may overlap it, as the guarantees allow, and
 * it counts as no permit. Its token is held to the rules all the same (the guarantees
 * promise tokens that only grow across a failover too, as long as the clock of Redis
 * does), but for one granted before the fault and read after later grants: then it must
 * only be new to its owner.
 */
final class HoldChecker {

	private final List<Hold> holds = new ArrayList<>();

	private @Nullable String violation;

	private long lastToken;

	private String lastOwner = "";

	private long lastWriterToken;

	private final Set<Long> readerTokens = new HashSet<>();

	// The owner every writer's and reader's token went to first.
	private final java.util.Map<Long, String> tokenOwners = new java.util.HashMap<>();

	// The largest token of each owner whose hold a failover lost, and the grants that
	// took an older token of their owner back.
	private final java.util.Map<String, Long> lostInFailover = new java.util.HashMap<>();

	// The largest token granted before a failover that lost writes.
	private long tokenBeforeLossyFailover = Long.MIN_VALUE;

	private int tokensBroughtBack;

	// The tokens of holds in flight that a failover brought back (broughtBackInFlight),
	// and how many grants took one.
	private final java.util.Set<Long> inFlightBroughtBack = new java.util.HashSet<>();

	private int inFlightTokensBroughtBack;

	// The owner each writer's token went to first in Redis, whether or not a caller held
	// it (a grant read too late to use, which the driver released), and how many grants
	// took back an older token that no caller of its owner had held.
	private final java.util.Map<Long, String> grantedInRedis = new java.util.HashMap<>();

	private int unheldTokensBroughtBack;

	// "<owner digest>:<token>" of each writer hold a failover that lost writes left in
	// the lock hash.
	private final Set<String> restoredByFailover = new HashSet<>();

	private int count;

	private int readerCount;

	// The semaphore's permits, or 0 for a lock.
	private final int permits;

	private final Set<Long> permitTokens = new HashSet<>();

	// The permit grants in the order their replies were read: when, and the largest token
	// read up to then.
	private final List<long[]> permitReads = new ArrayList<>();

	/**
	 * @param permits the permits of the semaphore whose holds are checked, or 0 for a
	 * lock
	 */
	HoldChecker(int permits) {
		this.permits = permits;
	}

	/**
	 * Record a writer's grant the holder received at {@code fromNanos}, valid until its
	 * deadline. Holds of one owner may overlap, and share a token: several clients of one
	 * custom owner, or a take-over of the owner's own hold.
	 */
	void held(String holder, String owner, long token, long fromNanos, long deadlineNanos) {
		held(holder, owner, token, fromNanos, deadlineNanos, false);
	}

	/**
	 * Record a grant the holder received at {@code fromNanos}, valid until its deadline.
	 * @param reader whether it is a read hold, which may overlap other read holds
	 */
	void held(String holder, String owner, long token, long fromNanos, long deadlineNanos, boolean reader) {
		held(holder, owner, token, fromNanos, deadlineNanos, reader, false);
	}

	/**
	 * Record a grant, as {@link #held(String, String, long, long, long, boolean)} does; a
	 * grant already {@code lost} (a fault took it in Redis before its reply was read) may
	 * overlap any hold, and its token need only be new to its owner: later grants may
	 * have been read before it.
	 */
	void held(String holder, String owner, long token, long fromNanos, long deadlineNanos, boolean reader,
			boolean lost) {
		if (lost) {
			newToOwner(holder, owner, token);
			if (token > this.lastToken) {
				// Seed 10071: a shared owner's join of this token, read after this reply,
				// is the same owner's, as for a grant that was not lost.
				this.lastToken = token;
				this.lastOwner = owner;
			}
			if (!reader) {
				this.lastWriterToken = Math.max(this.lastWriterToken, token);
			}
			Hold hold = new Hold(holder, owner, token, deadlineNanos, reader);
			hold.lost = true;
			this.holds.add(hold);
			this.count++;
			this.readerCount += reader ? 1 : 0;
			return;
		}
		if (deadlineNanos - fromNanos <= 0) {
			// The caller would start its work on a lease that is already over.
			violated(holder + " was granted token " + token + " " + (fromNanos - deadlineNanos) / 1e6
					+ " ms after the lease it granted had ended");
		}
		if (reader) {
			if (token <= this.lastWriterToken) {
				violated(holder + " got read token " + token + " after write token " + this.lastWriterToken);
			}
			if (!this.readerTokens.add(token)) {
				violated(holder + " got read token " + token + ", granted to a reader before");
			}
		}
		else {
			boolean sameOwner = token == this.lastToken && owner.equals(this.lastOwner);
			if (token <= this.lastToken && !sameOwner && broughtBack(owner, token)) {
				if (this.inFlightBroughtBack.contains(token)) {
					this.inFlightTokensBroughtBack++;
				}
				else if (!this.tokenOwners.containsKey(token)) {
					this.unheldTokensBroughtBack++;
				}
				else {
					this.tokensBroughtBack++;
				}
			}
			else if (token <= this.lastToken && !sameOwner) {
				violated(holder + " got token " + token + " after token " + this.lastToken);
			}
			this.lastWriterToken = Math.max(this.lastWriterToken, token);
		}
		newToOwner(holder, owner, token);
		if (token > this.lastToken) {
			this.lastToken = token;
			this.lastOwner = owner;
		}
		for (Hold other : this.holds) {
			if (other.endNanos - fromNanos > 0 && !other.owner.equals(owner) && !(reader && other.reader)
					&& !other.lost) {
				violated(holder + " took " + (reader ? "read " : "") + "token " + token + " while " + other.holder
						+ " held " + (other.reader ? "read " : "") + "token " + other.token + " for another "
						+ (other.endNanos - fromNanos) / 1e6 + " ms");
			}
		}
		this.holds.removeIf((other) -> other.endNanos - fromNanos <= 0);
		this.holds.add(new Hold(holder, owner, token, deadlineNanos, reader));
		this.count++;
		if (reader) {
			this.readerCount++;
		}
	}

	/**
	 * Record that a failover lost a hold of this owner, with this token, while its holder
	 * counted on it (or its reply was in flight).
	 */
	void lostInFailover(String owner, long token) {
		this.lostInFailover.merge(owner, token, Math::max);
	}

	/**
	 * Record that a fault took a hold whose grant's reply was in flight, and that a
	 * failover which lost writes brought the hold back before the reply was read: Redis
	 * gave its token to this owner before the failover, as it did an earlier hold that
	 * {@link #broughtBack} finds.
	 */
	void broughtBackInFlight(String owner, long token) {
		this.tokenOwners.putIfAbsent(token, owner);
		this.inFlightBroughtBack.add(token);
	}

	/**
	 * Record that a writer's acquire script granted this token to this owner in Redis,
	 * whether or not its caller then held it: a grant read after its acquisition ended is
	 * released by the driver, and a failover that loses that release brings the hold
	 * back, as it does a held one (seed 49708).
	 */
	void grantedInRedis(String owner, long token) {
		this.grantedInRedis.putIfAbsent(token, owner);
	}

	/**
	 * Record the writer hold a failover that lost writes left in the lock hash.
	 */
	void failoverRestored(String ownerDigest, long token) {
		this.restoredByFailover.add(ownerDigest + ":" + token);
	}

	/**
	 * Record a failover that lost writes: the grants before it, whatever their holds'
	 * state then (seed 5677: a hold whose lease had run out in a stall, which the
	 * failover's lost writes had granted), may be among them.
	 */
	void failedOverLosingWrites() {
		this.tokenBeforeLossyFailover = Math.max(this.tokenBeforeLossyFailover, this.lastToken);
	}

	/**
	 * Return how many writers' grants took an older token of their own owner back after a
	 * failover lost that owner's later hold ({@link #broughtBack}).
	 */
	int tokensBroughtBack() {
		return this.tokensBroughtBack;
	}

	/**
	 * Return how many writers' grants took back an older token that Redis had granted
	 * their owner but no caller held ({@link #grantedInRedis}).
	 */
	int unheldTokensBroughtBack() {
		return this.unheldTokensBroughtBack;
	}

	/**
	 * Return how many writers' grants, read after a failover brought their hold back
	 * while its reply was in flight, had a token older than one the failover lost.
	 */
	int inFlightTokensBroughtBack() {
		return this.inFlightTokensBroughtBack;
	}

	/**
	 * The one case docs/guarantees.md exempts from tokens that only grow ("except across
	 * a failover that lost the last acquisition"), as the engine has it: the failover
	 * lost a hold of a later token (of any owner), and brought back an owner's earlier
	 * hold, whose release it lost too; the owner's next acquisition joins that hold (a
	 * custom owner's) or takes it over (its own), and so gets its token again, without a
	 * new one. Whether this grant is that: its token went to the same owner first (held,
	 * or only granted in Redis), and a failover lost a hold (of any owner) with a larger
	 * token.
	 */
	private boolean broughtBack(String owner, long token) {
		// The later holds the failover lost may be another owner's (seed 2181: readers'
		// grants lost, and a writer's older hold brought back, which its owner joins).
		long lost = Math.max(this.tokenBeforeLossyFailover,
				this.lostInFailover.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE));
		String held = this.tokenOwners.get(token);
		if (held != null) {
			return lost > token && owner.equals(held);
		}
		// A token no caller held: only if a failover that lost writes left this very hold
		// (its owner and token) in the lock hash (seed 49708).
		return lost > token && owner.equals(this.grantedInRedis.get(token))
				&& this.restoredByFailover.contains(LockOwners.digest(owner) + ":" + token);
	}

	/**
	 * A token is granted to one owner only, whatever order the replies are read in.
	 */
	private void newToOwner(String holder, String owner, long token) {
		String first = this.tokenOwners.putIfAbsent(token, owner);
		if (first == null) {
			// Granted in Redis to another owner before, though no caller held it.
			first = this.grantedInRedis.get(token);
		}
		if (first != null && !first.equals(owner)) {
			violated(holder + " got token " + token + ", granted to " + first + " before");
		}
	}

	/**
	 * Record a permit's grant that the holder received at {@code fromNanos}, valid until
	 * its deadline, for an attempt sent at {@code sentNanos}.
	 */
	void permitHeld(String holder, long token, long sentNanos, long fromNanos, long deadlineNanos) {
		permitHeld(holder, token, sentNanos, fromNanos, deadlineNanos, false);
	}

	/**
	 * Record a permit's grant, as {@link #permitHeld(String, long, long, long, long)}
	 * does; a grant already {@code lost} (a fault took it in Redis before its reply was
	 * read) counts as no permit.
	 */
	void permitHeld(String holder, long token, long sentNanos, long fromNanos, long deadlineNanos, boolean lost) {
		if (deadlineNanos - fromNanos <= 0) {
			violated(holder + " was granted permit token " + token + " " + (fromNanos - deadlineNanos) / 1e6
					+ " ms after the lease it granted had ended");
		}
		if (!this.permitTokens.add(token)) {
			violated(holder + " got permit token " + token + ", granted before");
		}
		long readBefore = largestPermitTokenReadBefore(sentNanos);
		if (token <= readBefore) {
			violated(holder + " got permit token " + token + " after token " + readBefore
					+ " was granted and read before its attempt was sent");
		}
		long largest = this.permitReads.isEmpty() ? 0 : this.permitReads.get(this.permitReads.size() - 1)[1];
		this.permitReads.add(new long[] { fromNanos, Math.max(largest, token) });
		this.holds.removeIf((other) -> other.endNanos - fromNanos <= 0);
		if (!lost && this.holds.stream().filter((other) -> !other.lost).count() >= this.permits) {
			StringBuilder held = new StringBuilder();
			for (Hold other : this.holds) {
				held.append(", ")
					.append(other.holder)
					.append(" token ")
					.append(other.token)
					.append(" for another ")
					.append((other.endNanos - fromNanos) / 1e6)
					.append(" ms");
			}
			violated(holder + " took permit token " + token + " while " + this.holds.size() + " of " + this.permits
					+ " permits were held" + held);
		}
		Hold hold = new Hold(holder, "", token, deadlineNanos, false);
		hold.lost = lost;
		this.holds.add(hold);
		this.count++;
	}

	private long largestPermitTokenReadBefore(long nanos) {
		int low = 0;
		int high = this.permitReads.size();
		// The first read at or after nanos.
		while (low < high) {
			int middle = (low + high) >>> 1;
			if (this.permitReads.get(middle)[0] - nanos < 0) {
				low = middle + 1;
			}
			else {
				high = middle;
			}
		}
		return (low == 0) ? 0 : this.permitReads.get(low - 1)[1];
	}

	/**
	 * Record that a live hold's holder now counts on it until {@code deadlineNanos}: a
	 * renewal or an extension confirmed it, or a nested hold of the same owner. A hold
	 * whose deadline has passed is over (its holder was told the lease was lost) and
	 * stays over. Any holder that took the lock while this one was live was reported when
	 * it took it.
	 */
	void extended(String holder, long token, long nowNanos, long deadlineNanos) {
		for (Hold hold : this.holds) {
			if (hold.holder.equals(holder) && hold.token == token && !hold.released && hold.endNanos - nowNanos > 0
					&& deadlineNanos - hold.endNanos > 0) {
				hold.endNanos = deadlineNanos;
			}
		}
	}

	/**
	 * Record that a holder released, at {@code nowNanos}, a nested hold that shares its
	 * token with its other holds (a re-entry of its owner's hold): from now on it counts
	 * only on those, until {@code deadlineNanos} (the latest of their deadlines, or
	 * {@code nowNanos} if none is live). The nested hold's longer lease, which moved the
	 * hold's end later ({@link #extended}), no longer counts (seed 22825: the outer
	 * hold's own lease ended in a stall, and an eviction let another holder in before the
	 * released nested hold's lease would have ended).
	 */
	void nestedReleased(String holder, long token, long nowNanos, long deadlineNanos) {
		long endNanos = (deadlineNanos - nowNanos > 0) ? deadlineNanos : nowNanos;
		for (Hold hold : this.holds) {
			if (hold.holder.equals(holder) && hold.token == token && !hold.released && endNanos - hold.endNanos < 0) {
				hold.endNanos = endNanos;
			}
		}
	}

	/**
	 * Record that a holder stopped using its hold at {@code endNanos}.
	 */
	void released(String holder, long token, long endNanos) {
		for (Hold hold : this.holds) {
			if (hold.holder.equals(holder) && hold.token == token) {
				hold.endNanos = Math.min(endNanos, hold.endNanos);
				hold.released = true;
			}
		}
	}

	/**
	 * Record that a released permit stays taken until {@code untilNanos}: its release
	 * kept it for what was left of its minimum hold.
	 */
	void keptUntil(String holder, long token, long untilNanos) {
		for (Hold hold : this.holds) {
			if (hold.holder.equals(holder) && hold.token == token && untilNanos - hold.endNanos > 0) {
				hold.endNanos = untilNanos;
			}
		}
	}

	/**
	 * Record that a fault lost a hold in Redis (or cut it short) while its holder counts
	 * on it: another holder may overlap it from now on.
	 */
	void lost(String holder, long token) {
		for (Hold hold : this.holds) {
			if (hold.holder.equals(holder) && hold.token == token) {
				hold.lost = true;
			}
		}
	}

	/**
	 * Record a violation that the simulation found itself.
	 */
	void violated(String what) {
		if (this.violation == null) {
			this.violation = what;
		}
	}

	@Nullable String violation() {
		return this.violation;
	}

	int holds() {
		return this.count;
	}

	/**
	 * Return how many of the holds were read holds.
	 */
	int readHolds() {
		return this.readerCount;
	}

	private static final class Hold {

		private final String holder;

		private final String owner;

		private final long token;

		private final boolean reader;

		private long endNanos;

		private boolean released;

		private boolean lost;

		Hold(String holder, String owner, long token, long endNanos, boolean reader) {
			this.holder = holder;
			this.owner = owner;
			this.token = token;
			this.endNanos = endNanos;
			this.reader = reader;
		}

	}

}
