package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Consumer;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.SimulatedIds;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.simulation.PubSub;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;
import io.github.distributedlock.simulation.VirtualClock;
import org.jspecify.annotations.Nullable;

/**
 * One run of the driver's {@code Acquisitions}, as both templates start every
 * acquisition: three clients ({@link AcquisitionCaller}), each a JVM of its own with the
 * engine's {@code HoldRegistry}, local lines and replica check ({@code ReplicaWait} over
 * {@link SimulatedReplicas}), take one of three exclusive locks
 * ({@code Acquisitions.one}) or two or three of them as one hold
 * ({@code Acquisitions.all}: in one script, or one by one where the client's Redis is a
 * Cluster), over a {@link SimulatedPort} of its own, and cancel a quarter of their calls
 * at drawn times and a third of their replica checks while they run.
 * <p>
 * Drawn per run, from a PRNG of their own: the command timeout (just below, at or just
 * above 100 ms or 1 s), whether the template knows it (else the calls have no bound and
 * settle within {@code SettledRun.UNKNOWN_TIMEOUT_SETTLE_NANOS}), whether grants pass a
 * replica check and how many writes the replica lags by, whether the locks are reentrant,
 * whether they are renewed by the watchdog; and the faults: lost replies (one command in
 * 30, run in Redis or not, some late), client pauses, Redis stalls. In a third of the
 * runs, from a PRNG of its own, one client's template closes at a drawn time
 * ({@link #drawClose}).
 * <p>
 * Checked after every event: each lock's holds ({@link HoldChecker}: no two owners at
 * once, tokens that grow), each hold a client counts on against Redis
 * ({@link HoldsInRedis}), and the holds nobody counts on (a grant the caller never got,
 * an attempt or a release whose reply was lost) gone as soon as Redis answers
 * ({@link OrphanedHolds}); the clients check their calls' promises.
 */
final class AcquisitionCallRun {

	static final long MS = LockSimulation.MS;

	static final String FENCE_IDLE_MS = "600000";

	// The locks the clients take, one each or several at once.
	static final List<String> KEYS = List.of("a", "b", "c");

	// How long the run goes on once every client is done: past every lease, command
	// timeout and retry of what is still in flight, so that what nobody counts on is seen
	// to end.
	private static final long DRAIN_NANOS = 5_000 * MS;

	// One command in this many loses its reply, where replies are lost.
	private static final int CUT_ONE_IN = 30;

	/**
	 * A bug planted where a caller meets {@code Acquisitions}: the simulation must find
	 * it.
	 */
	enum Bug {

		/** Acquisitions as it ships. */
		NONE,

		/**
		 * A replica check cancelled by its caller never releases what it checked: the
		 * lock stays taken, counted on by nobody, until its lease ends.
		 */
		CANCELLED_CHECK_KEEPS_GRANT,

		/**
		 * A template whose close forgets its hold registry: the watchdog renews what the
		 * closed template's callers hold.
		 */
		RENEWS_AFTER_CLOSE,

		/**
		 * A subscriber that leaves without its cancel reaching the call, as through a
		 * {@code Mono} without its cancel hook: the call goes on, and what it wins
		 * reaches nobody and stays taken until its lease ends.
		 */
		LEAVES_WITHOUT_CANCEL

	}

	private final long seed;

	private final Bug bug;

	private final UniqueIds ids;

	private final VirtualClock clock = new VirtualClock(1_000_000 * MS);

	private final RedisModel redis = new RedisModel(this.clock);

	// Delays, pauses and stalls; lost replies; the replica's answers; and the run's
	// draws, each from a PRNG of its own.
	private final SimulationRandom random;

	private final SimulationRandom cuts;

	private final SimulationRandom replicaDraws;

	private final Cancellations cancellations;

	private final SimulationRandom closes;

	// What the run draws.
	private final long commandTimeoutNanos;

	private final boolean timeoutKnown;

	private final boolean replicas;

	private final int replicaLag;

	private final boolean reentrant;

	private final boolean renewed;

	private final boolean losesReplies;

	private final boolean pauses;

	private final boolean stalls;

	private final Map<String, LockSpec> specs = new LinkedHashMap<>();

	private final Map<String, HoldChecker> checkers = new LinkedHashMap<>();

	private final Map<String, OrphanedHolds> orphans = new LinkedHashMap<>();

	private final List<AcquisitionCaller> callers = new ArrayList<>();

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private final List<String> trace = new ArrayList<>();

	private final Map<Integer, Consumer<String>> listeners = new HashMap<>();

	private final Map<String, Integer> counted = new LinkedHashMap<>();

	private final Map<String, String> found = new LinkedHashMap<>();

	private @Nullable String violation;

	private long sequence;

	private int steps;

	private final SimulatedPort.World world = new SimulatedPort.World() {

		@Override
		public long nanos() {
			return AcquisitionCallRun.this.clock.nanos();
		}

		@Override
		public UniqueIds ids() {
			return AcquisitionCallRun.this.ids;
		}

		@Override
		public void at(long delayNanos, String what, Runnable action) {
			AcquisitionCallRun.this.at(delayNanos, what, action);
		}

		@Override
		public void redisAt(long delayNanos, String what, Runnable action) {
			AcquisitionCallRun.this.at(AcquisitionCallRun.this.clock.nanos() + delayNanos, what, action, true);
		}

		@Override
		public long network() {
			return AcquisitionCallRun.this.network();
		}

		@Override
		public long replyDelay() {
			SimulationRandom random = AcquisitionCallRun.this.random;
			return (random.nextInt(10) == 0 && AcquisitionCallRun.this.pauses) ? LockSimulation.aroundConstant(random)
					: network();
		}

		@Override
		public long resend(String operation, ScriptCall call) {
			return -1;
		}

		@Override
		public LostReplies.@Nullable Cut cut() {
			return AcquisitionCallRun.this.cut();
		}

		@Override
		public long commandTimeoutNanos() {
			return AcquisitionCallRun.this.commandTimeoutNanos;
		}

		@Override
		public Object eval(ScriptCall call) {
			return AcquisitionCallRun.this.redis.eval(call.script().name(), call.keys(), call.argv());
		}

		@Override
		public void note(String what) {
			AcquisitionCallRun.this.trace.add(what);
		}

		@Override
		public PubSub pubSub() {
			return AcquisitionCallRun.this.redis.pubSub();
		}

		@Override
		public void route(PubSub.Subscriber subscriber, @Nullable Consumer<String> heard) {
			if (heard != null) {
				AcquisitionCallRun.this.listeners.put(subscriber.id(), heard);
			}
			else {
				AcquisitionCallRun.this.listeners.remove(subscriber.id());
			}
		}

	};

	AcquisitionCallRun(long seed, Bug bug) {
		this.seed = seed;
		this.bug = bug;
		this.ids = SimulatedIds.of(seed);
		this.random = new SimulationRandom(seed ^ 0x61637173L);
		this.cuts = new SimulationRandom(seed ^ 0x63757473L);
		this.replicaDraws = new SimulationRandom(seed ^ 0x7265706cL);
		this.cancellations = new Cancellations(seed ^ 0x61637173L);
		this.closes = new SimulationRandom(seed ^ 0x636c6f7365L);
		SimulationRandom draws = new SimulationRandom(seed ^ 0x64726177L);
		long constant = LostReplies.TIMEOUTS_MS[draws.nextInt(LostReplies.TIMEOUTS_MS.length)] * MS;
		long[] offsets = { -MS, -1, 0, 1, MS };
		this.commandTimeoutNanos = constant + offsets[draws.nextInt(offsets.length)];
		this.timeoutKnown = draws.nextInt(4) != 0;
		this.replicas = draws.nextInt(4) != 0;
		this.replicaLag = new int[] { 0, 1, 1, 2, 4 }[draws.nextInt(5)];
		this.reentrant = draws.nextInt(2) == 0;
		this.renewed = draws.nextInt(2) == 0;
		this.losesReplies = draws.nextInt(2) == 0;
		this.pauses = draws.nextInt(2) == 0;
		this.stalls = draws.nextInt(4) == 0;
		this.redis.replicaLag(this.replicaLag);
		for (String key : KEYS) {
			LockSpec spec = resolve(key, Duration.ofSeconds(3));
			this.specs.put(key, spec);
			this.checkers.put(spec.lockKey(), new HoldChecker(0));
			LostState state = new LostState(this.redis, spec.lockKey(), LockKeys.permits(spec.lockKey()));
			this.orphans.put(spec.lockKey(),
					new OrphanedHolds(state, (client, hold) -> countsOn(client, spec.lockKey(), hold), this::violated));
		}
	}

	/**
	 * Resolve one lock as the engine does: a 1 s lease, pub/sub, the run's reentrancy and
	 * renewal, and the wait time given.
	 */
	LockSpec resolve(String key, Duration waitTime) {
		LockRequestResolver resolver = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("sim", 0), false,
				true, new RedisServerFeatures(null, false, false), 5_000);
		return resolver.resolve(LockRequest.builder("orders")
			.key(key)
			.lease(Duration.ofMillis(LockSimulation.LEASE_MS))
			.waitTime(waitTime)
			.reentrant(this.reentrant)
			.autoRenew(this.renewed)
			.mode(LockMode.EXCLUSIVE)
			.build());
	}

	/**
	 * Run the clients until each has made its calls, or the step budget is spent.
	 * @return what the checks found, or {@code null} if nothing
	 */
	@Nullable String run(int clients, int callsEach) {
		note(String.format("command timeout %.3f ms%s, replica check %s, %s, %s; faults:%s%s%s",
				this.commandTimeoutNanos / 1e6, this.timeoutKnown ? "" : " (unknown to the template)",
				this.replicas ? "with a lag of " + this.replicaLag + " writes" : "off",
				this.reentrant ? "reentrant" : "not reentrant", this.renewed ? "renewed" : "a set lease",
				this.losesReplies ? " lost replies" : "", this.pauses ? " pauses" : "", this.stalls ? " stalls" : ""));
		// Drawn apart, so that a run without a close is the run it was.
		boolean closes = this.closes.nextInt(3) == 0;
		int closing = closes ? this.closes.nextInt(clients) : -1;
		for (int i = 0; i < clients; i++) {
			boolean cluster = this.random.nextInt(2) == 0;
			AcquisitionCaller caller = new AcquisitionCaller(this, "c" + i, "owner-c" + i, callsEach, cluster);
			this.callers.add(caller);
			at(this.random.between(0, 50 * MS), caller.name() + " starts" + (caller.cluster() ? " (a Cluster)" : ""),
					caller::start);
		}
		if (this.stalls) {
			at(this.random.between(0, 2_000 * MS), "redis stalls", this::stall);
		}
		if (closes) {
			drawClose(this.callers.get(closing), callsEach);
		}
		long doneNanos = -1;
		while (!this.events.isEmpty() && this.steps++ < 200_000) {
			if (doneNanos < 0 && this.callers.stream().allMatch(AcquisitionCaller::done)) {
				doneNanos = this.clock.nanos();
			}
			if (doneNanos >= 0 && this.clock.nanos() - doneNanos > DRAIN_NANOS) {
				// The registries' sweeps may go on: what is left has had its time.
				break;
			}
			Event event = this.events.poll();
			this.clock.advanceTo(Math.max(this.clock.nanos(), event.at));
			if (!this.redis.answering() && event.needsRedis) {
				at(this.redis.stalledUntil(), event.what, event.action, true);
				continue;
			}
			this.trace.add(String.format("%9.3f ms  %s", at(this.clock.nanos()), event.what));
			try {
				event.action.run();
			}
			catch (RuntimeException ex) {
				return event.what + " failed: " + ex;
			}
			deliver();
			check();
			if (this.violation != null) {
				return this.violation;
			}
		}
		long now = this.clock.nanos();
		this.orphans.values().forEach((watched) -> watched.finish(now));
		this.callers.forEach(AcquisitionCaller::finish);
		return (this.violation != null) ? this.violation : violationOfCheckers();
	}

	/**
	 * Draw, from a PRNG of its own, when the template of the client that closes (in a
	 * third of the runs) closes: a delay after the start of one of its calls (within its
	 * first attempt, its first milliseconds, its replica check or its wait), after its
	 * end (a release under way, the next call not yet started), or during a grant that
	 * its caller holds long enough for renewals to fall due.
	 */
	private void drawClose(AcquisitionCaller closing, int callsEach) {
		int call = 1 + this.closes.nextInt(callsEach);
		AcquisitionCaller.Close.Trigger trigger = AcquisitionCaller.Close.Trigger.values()[this.closes.nextInt(3)];
		long hold = this.closes.between(400 * MS, 1_500 * MS);
		long delay = switch (this.closes.nextInt(4)) {
			case 0 -> this.closes.between(0, 200_000);
			case 1 -> this.closes.between(0, 10 * MS);
			case 2 -> this.closes.between(0, 150 * MS);
			default -> this.closes.between(0, (trigger == AcquisitionCaller.Close.Trigger.HOLD) ? hold : 1_200 * MS);
		};
		boolean blocking = this.closes.nextInt(2) == 0;
		note(closing.name() + "'s template closes (" + (blocking ? "blocking" : "reactive") + ") " + delay / 1e6
				+ " ms after " + trigger.name().toLowerCase() + " of its call " + call);
		closing.closes(new AcquisitionCaller.Close(call, trigger, delay, hold, blocking));
	}

	private void check() {
		String found = violationOfCheckers();
		if (found != null) {
			violated(found);
			return;
		}
		for (AcquisitionCaller caller : this.callers) {
			caller.checkClosed(this.redis);
		}
		if (this.violation != null) {
			return;
		}
		if (!this.redis.answering()) {
			return;
		}
		long now = this.clock.nanos();
		for (AcquisitionCaller caller : this.callers) {
			caller.checkLiveHolds(this.redis, now);
		}
		this.orphans.values().forEach((watched) -> watched.check(now));
	}

	private @Nullable String violationOfCheckers() {
		for (Map.Entry<String, HoldChecker> checker : this.checkers.entrySet()) {
			String found = checker.getValue().violation();
			if (found != null) {
				return "lock " + checker.getKey() + ": " + found;
			}
		}
		return null;
	}

	private void stall() {
		if (this.callers.stream().allMatch(AcquisitionCaller::done)) {
			return;
		}
		long stall = LockSimulation.aroundConstant(this.random);
		this.redis.stall(Duration.ofNanos(stall));
		this.orphans.values().forEach((watched) -> watched.stalled(this.clock.nanos(), this.redis.stalledUntil()));
		note("redis stalled for " + stall / 1e6 + " ms");
		at(this.random.between(0, 3_000 * MS), "redis stalls", this::stall);
	}

	/**
	 * Deliver what was published, after a network delay.
	 */
	private void deliver() {
		for (PubSub.Delivery delivery : this.redis.pubSub().drain()) {
			Consumer<String> listener = this.listeners.get(delivery.subscriber().id());
			if (listener != null) {
				at(network(), delivery.subscriber().name() + " hears " + delivery.message(),
						() -> listener.accept(delivery.message()));
			}
		}
	}

	/**
	 * Draw whether the command being sent loses its reply: it runs in Redis (three in
	 * four, half of those late, after its timeout) or never reaches it, and its caller
	 * hears of the failure at the connection's command timeout.
	 */
	private LostReplies.@Nullable Cut cut() {
		boolean cut = this.cuts.nextInt(CUT_ONE_IN) == 0;
		boolean runs = this.cuts.nextInt(4) != 0;
		boolean late = this.cuts.nextInt(2) == 0;
		long lateNanos = this.commandTimeoutNanos + this.cuts.between(0, LostReplies.LATE_NANOS);
		if (!cut || !this.losesReplies) {
			return null;
		}
		count(runs ? (late ? "replies lost, run late" : "replies lost, run") : "replies lost, never run");
		return new LostReplies.Cut(runs, this.commandTimeoutNanos, (runs && late) ? lateNanos : -1);
	}

	/**
	 * A network delay: mostly tens of microseconds, sometimes milliseconds.
	 */
	long network() {
		return (this.random.nextInt(10) == 0) ? this.random.between(0, 5 * MS) : this.random.between(0, 100_000);
	}

	/**
	 * How long a holder works with its locks: a few milliseconds, or, paused, about a
	 * protocol constant.
	 */
	long work() {
		return (this.random.nextInt(8) == 0 && this.pauses) ? LockSimulation.aroundConstant(this.random)
				: this.random.between(0, 3 * MS);
	}

	/**
	 * Return whether a client counts on its hold of a lock: one it holds, or one its call
	 * under way won (a multi-lock's holds share their id).
	 */
	private boolean countsOn(String client, String lockKey, String hold) {
		return this.callers.stream()
			.anyMatch((caller) -> caller.name().equals(client) && caller.countsOn(lockKey, hold));
	}

	void violated(String what) {
		if (this.violation == null) {
			this.violation = what;
		}
	}

	/**
	 * Note the first call of the run that shows something worth reading in the trace.
	 */
	void found(String what, String call) {
		this.found.putIfAbsent(what, "seed " + this.seed + ", " + call);
	}

	Map<String, String> found() {
		return Map.copyOf(this.found);
	}

	void count(String what) {
		count(what, 1);
	}

	void count(String what, int times) {
		this.counted.merge(what, times, Integer::sum);
	}

	void note(String what) {
		this.trace.add("           " + what);
	}

	void at(long delay, String what, Runnable action) {
		at(this.clock.nanos() + delay, what, action, false);
	}

	private void at(long at, String what, Runnable action, boolean needsRedis) {
		this.events.add(new Event(at, this.sequence++, what, action, needsRedis));
	}

	static double at(long nanos) {
		return (nanos - 1_000_000 * MS) / 1e6;
	}

	long nanos() {
		return this.clock.nanos();
	}

	Bug bug() {
		return this.bug;
	}

	SimulatedPort.World world() {
		return this.world;
	}

	RedisModel redis() {
		return this.redis;
	}

	SimulationRandom random() {
		return this.random;
	}

	SimulationRandom replicaDraws() {
		return this.replicaDraws;
	}

	Cancellations cancellations() {
		return this.cancellations;
	}

	LockSpec spec(String key) {
		return this.specs.get(key);
	}

	HoldChecker checker(String lockKey) {
		return this.checkers.get(lockKey);
	}

	OrphanedHolds orphans(String lockKey) {
		return this.orphans.get(lockKey);
	}

	long commandTimeoutNanos() {
		return this.commandTimeoutNanos;
	}

	/**
	 * Return the command timeout the template knows: the connections', or -1 if unknown.
	 */
	long knownTimeoutNanos() {
		return this.timeoutKnown ? this.commandTimeoutNanos : -1;
	}

	boolean replicas() {
		return this.replicas;
	}

	boolean renewed() {
		return this.renewed;
	}

	/**
	 * Return how many of each thing happened, by name, for the report.
	 */
	Map<String, Integer> counts() {
		return Map.copyOf(this.counted);
	}

	int holds() {
		return this.checkers.values().stream().mapToInt(HoldChecker::holds).sum();
	}

	int steps() {
		return this.steps;
	}

	String trace(int last) {
		List<String> tail = this.trace.subList(Math.max(0, this.trace.size() - last), this.trace.size());
		return "seed " + this.seed + " (acquisition calls), last " + tail.size() + " of " + this.trace.size()
				+ " events:\n" + String.join("\n", tail);
	}

	private record Event(long at, long sequence, String what, Runnable action,
			boolean needsRedis) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

}
