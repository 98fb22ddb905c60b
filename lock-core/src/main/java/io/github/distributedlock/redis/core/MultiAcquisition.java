package io.github.distributedlock.redis.core;

import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of one all-or-nothing acquisition of several locks, apart from its I/O:
 * what each attempt carries, what a reply means, where to wait and for how long, and
 * which lines to withdraw the request from at the end. It keeps the invariant of
 * {@link Acquisition}. Not thread-safe.
 */
public final class MultiAcquisition {

	private final List<LockSpec> specs;

	private final String owner;

	// The same hold id in every lock and every attempt.
	private final String hold;

	private final boolean reentrant;

	private final NanoClock clock;

	private final Deadline deadline;

	private final @Nullable HandOffRequest request;

	// The locks whose lines got the request, to withdraw it from if the wait fails.
	private final Set<LockSpec> filed = new LinkedHashSet<>();

	private int count;

	private int lateGrants;

	// As in Acquisition: grants in a row too late to use, and the last one's round trip.
	private int lateInARow;

	private long lateRoundTripNanos;

	private @Nullable LockSpec blocked;

	/**
	 * @param specs the locks, in the global order
	 * @param handOff whether the template lines waiters up for reservations
	 * @param ids the port's ids, of the hold and of the hand-off request
	 */
	public MultiAcquisition(List<LockSpec> specs, String owner, long waitNanos, boolean reentrant, boolean handOff,
			NanoClock clock, UniqueIds ids) {
		this.specs = List.copyOf(specs);
		this.owner = owner;
		this.hold = ids.next();
		this.reentrant = reentrant;
		this.clock = clock;
		this.deadline = new Deadline(clock, waitNanos, clock.nanoTime());
		LockSpec first = specs.get(0);
		this.request = Acquisition.linesUp(handOff, first, this.deadline) ? first.waitMode().request(ids) : null;
	}

	/**
	 * Return the locks in the global order, by key, each once: every multi-lock takes its
	 * locks in this order, which makes overlapping multi-locks deadlock-free.
	 */
	public static List<LockSpec> inGlobalOrder(List<LockSpec> requested) {
		TreeMap<String, LockSpec> ordered = new TreeMap<>();
		for (LockSpec spec : requested) {
			ordered.putIfAbsent(spec.lockKey(), spec);
		}
		return List.copyOf(ordered.values());
	}

	/**
	 * Return whether one script takes the locks together: not for one lock, nor on a
	 * Cluster for keys in several hash slots; they are then taken one by one.
	 * @param cluster whether Redis is a Cluster, asked only if there are several locks
	 */
	public static boolean inOneScript(List<LockSpec> specs, BooleanSupplier cluster) {
		return specs.size() > 1 && (!cluster.getAsBoolean()
				|| specs.stream().map((spec) -> HashSlots.slot(spec.lockKey())).distinct().count() == 1);
	}

	public List<LockSpec> specs() {
		return this.specs;
	}

	public String owner() {
		return this.owner;
	}

	public String hold() {
		return this.hold;
	}

	public boolean reentrant() {
		return this.reentrant;
	}

	/** Return the request the attempts file in the line of the lock that blocks them. */
	public @Nullable HandOffRequest request() {
		return this.request;
	}

	/** Count the next attempt and return its clock reading, taken before it is sent. */
	public long next() {
		this.count++;
		return this.clock.nanoTime();
	}

	/**
	 * Take in the reply to an attempt.
	 * @return what it means; {@link Over} for a try-once or a wait time that ran out
	 */
	public Outcome replied(long sentNanos, MultiAcquireResult result) {
		long now = this.clock.nanoTime();
		if (result.acquired()) {
			List<Grant> grants = grants(result, sentNanos);
			boolean inTime = grants.stream()
				.allMatch((grant) -> Acquisition.inTime(sentNanos, grant.spec().leaseMillis(), now));
			if (!inTime) {
				this.lateGrants++;
				this.lateInARow++;
				this.lateRoundTripNanos = now - sentNanos;
			}
			return new Granted(grants, !inTime);
		}
		this.lateInARow = 0;
		LockSpec spec = this.specs.get(result.index());
		this.blocked = spec;
		if (result.selfDeadlock()) {
			return new Failed(new LockSelfDeadlockException(spec.name()));
		}
		if (this.request != null) {
			this.filed.add(spec);
		}
		this.deadline.holderSeen(result.holderTtlMillis(), now);
		if (this.deadline.isTryOnce() || this.deadline.remainingNanos() <= 0) {
			return Over.INSTANCE;
		}
		return new Blocked(spec);
	}

	/** Return whether to send again after a late grant (see {@link Deadline}). */
	public boolean retriesLateGrant() {
		return this.deadline.retriesLateGrant(this.lateGrants);
	}

	/** Return the longest sleep on the blocking lock's line (see {@link Acquisition}). */
	public long sleepNanos() {
		LockSpec spec = (this.blocked != null) ? this.blocked : this.specs.get(0);
		long sleep = spec.waitMode().capSleep(this.deadline.sleepNanos());
		if (this.request != null) {
			// Not every half claim like a single lock's waiter: a multi-lock's attempt
			// reads all its locks, and may be large.
			sleep = Math.min(sleep, HandOffRequest.REFILE_NANOS);
		}
		return Math.max(0, Math.min(sleep, Acquisition.MAX_SLEEP_NANOS));
	}

	/** Return how long to wait at most for a line's subscription. */
	public long subscribeNanos() {
		return this.deadline.sleepNanos();
	}

	/**
	 * Take in an attempt that got no reply (an interrupt threw it away, or Redis failed):
	 * it may have run and filed the request in the line of whichever lock blocked it.
	 */
	public void unanswered() {
		this.filed.addAll(this.specs);
	}

	/**
	 * Return the locks whose lines to withdraw the request from if the acquisition ends
	 * without the locks.
	 */
	public Set<LockSpec> filed() {
		return (this.request != null) ? this.filed : Set.of();
	}

	/** Build the exception for a wait that ran out, naming the lock that blocked it. */
	public LockTimeoutException timeout() {
		if (this.lateInARow > 0) {
			// Named by the lock with the shortest lease, which a round trip outlasted.
			LockSpec shortest = this.specs.stream().min(Comparator.comparingLong(LockSpec::leaseMillis)).orElseThrow();
			return new LockTimeoutException(shortest.name(), this.deadline.elapsed(), null,
					Acquisition.grantedTooLate(this.lateInARow, shortest.leaseMillis(), this.lateRoundTripNanos));
		}
		LockSpec spec = (this.blocked != null) ? this.blocked : this.specs.get(0);
		return this.deadline.timeout(spec.name(), null);
	}

	private List<Grant> grants(MultiAcquireResult result, long sentNanos) {
		boolean waited = this.count > 1;
		return IntStream.range(0, this.specs.size())
			.mapToObj((i) -> new Grant(this.specs.get(i), this.owner, result.tokens()[i], this.hold, sentNanos, waited,
					this.deadline.elapsed(), this.count))
			.toList();
	}

	/** What a reply means. */
	public sealed interface Outcome permits Granted, Failed, Over, Blocked {

	}

	/**
	 * The attempt took every lock.
	 *
	 * @param grants one grant per lock, in the given order
	 * @param late whether a lease it granted had ended when the reply came: then no hold,
	 * as for {@link AttemptOutcome.Late}
	 */
	public record Granted(List<Grant> grants, boolean late) implements Outcome {

	}

	/** The acquisition fails with this error: a self-deadlock. */
	public record Failed(RuntimeException error) implements Outcome {

	}

	/** The wait is over without the locks. */
	enum Over implements Outcome {

		INSTANCE

	}

	/** The lock {@code spec} is taken: wait on its line, then try them all again. */
	public record Blocked(LockSpec spec) implements Outcome {

	}

}
