package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.LockSimulation.Fault;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.PlantedCohortBugs;
import io.github.distributedlock.redis.core.ReleaseMessage;
import io.github.distributedlock.redis.core.SimulatedIds;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.driver.Acquiring;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.redis.driver.CohortReentry;
import io.github.distributedlock.redis.driver.Cohorts;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.SettledRun;
import io.github.distributedlock.redis.driver.ListenerSteps;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.PlantedHoldBugs;
import io.github.distributedlock.redis.driver.Renewals;
import io.github.distributedlock.redis.driver.SingleAcquisition;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.simulation.PubSub;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;
import io.github.distributedlock.simulation.VirtualClock;
import org.jspecify.annotations.Nullable;

/**
 * One run of cohorts (docs/design/cohorting.md) on a virtual clock: two or three JVMs,
 * each with two to four threads that take one exclusive lock, work, sometimes re-enter
 * it, and release it, with cohorts on. Every thread runs the engine's own driver, as the
 * blocking template does: {@link CohortReentry} routes an acquisition of the cohort's
 * holder, a {@link SingleAcquisition} in its JVM's {@link LocalLines} (with its
 * {@link Cohorts}) acquires, and a {@link LockHold} over those lines releases, passing
 * the hold in memory when it may. Each thread has a {@link SimulatedPort} of its own.
 * <p>
 * Checked after every event, each against a promise, not against the code:
 * <ul>
 * <li>no two threads count on the lock at once, by each handle's deadline, across passes
 * and Redis grants;</li>
 * <li>Redis records every handle a thread counts on: its Redis owner, with a lease that
 * reaches its deadline ({@link HoldsInRedis});</li>
 * <li>shown tokens strictly increase in grant order, and a re-entry that joined a hold
 * shows its holder's token;</li>
 * <li>a pass stays within the block Redis granted, the cohort's holders and its time
 * limit from the opening attempt's send;</li>
 * <li>a thread is passed the lock only if it sent no request in that acquisition;</li>
 * <li>each release reserves the lock for the oldest live request, and only that request's
 * attempt takes it ({@link HandOffOrder});</li>
 * <li>in a run without faults, no wait gives up, and none lasts a third of a lease
 * ({@link #CALM_WAIT_BOUND_NANOS}).</li>
 * </ul>
 * Faults, each drawn for the run: clients paused before they read a reply or while they
 * work, around each protocol constant; scripts run twice with only the second reply
 * delivered; release messages dropped, duplicated or late; Redis stalls.
 */
final class CohortRun {

	static final long MS = LockSimulation.MS;

	private static final String FENCE_IDLE_MS = "600000";

	/**
	 * A sanity bound on every wait of a run without faults, not a promise: a third of the
	 * lease. Holds last at most 3 ms, a message or a reply at most 5 ms, cohorts at most
	 * 35 ms, and at most twelve callers wait (the longest of 2,000 seeds: 125 ms); a head
	 * that slept under a cohort until its lease end waited most of a lease.
	 */
	static final long CALM_WAIT_BOUND_NANOS = LockSimulation.LEASE_MS * MS / 3;

	// The attacks under which a calm run must still neither give up nor wait a lease:
	// none
	// of them holds the lock longer or loses what Redis was told.
	private static final Set<Attack> LIVE_ATTACKS = EnumSet.of(Attack.CANCEL, Attack.EXTEND, Attack.REENTER);

	private final long seed;

	private final UniqueIds ids;

	private final SimulationRandom random;

	private final VirtualClock clock = new VirtualClock(1_000_000 * MS);

	private final RedisModel redis;

	private final Set<Fault> faults;

	private final @Nullable Bug bug;

	private final CohortLimits limits;

	private final LockSpec spec;

	private final HandOffOrder handOffOrder;

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private final List<String> trace = new ArrayList<>();

	private final Map<Integer, Consumer<String>> listeners = new HashMap<>();

	private final List<Caller> callers = new ArrayList<>();

	// Every handle a thread got, released or not, with its thread.
	private final List<Handle> handles = new ArrayList<>();

	// The block Redis granted each hold, by owner and token, from the replies it sent.
	private final Map<String, Long> blocks = new HashMap<>();

	// When the attempt that opened each cohort was sent, by owner and token.
	private final Map<String, Long> openedNanos = new HashMap<>();

	private long lastShownToken;

	// The attacks this run draws (see Attack), each from draws of its own, so that a run
	// without them is the run it was before they came.
	private final Set<Attack> attacks;

	private final SimulationRandom extra;

	private final LostReplies lostReplies;

	private final Cancellations cancellations;

	private final SubscriptionGaps gaps;

	private final RedisFaults redisFaults;

	private final ClockPauses pauses;

	// Each JVM's lines, by JVM name.
	private final Map<String, LocalLines> linesOf = new HashMap<>();

	// When each pass was handed over, by owner / token # holder number: noted at the
	// first clock read after it, as the clock moves only at reads and between events. A
	// pause at a read after the hand-over delays the next holder's hearing of it, not
	// the pass (Attack#CLOCK).
	private final Map<String, Long> handedOver = new HashMap<>();

	// Passes whose next holder heard of them after a pause at a read after the hand-over.
	private int passesToldLate;

	// Clock reads so far: the order of what happens within a step (Attack#CLOCK).
	private long reads;

	// The read at which each pass was handed over, as handedOver, and at which each
	// cohort's opening grant was told, by owner / token.
	private final Map<String, Long> handedOverReads = new HashMap<>();

	private final Map<String, Long> openedReads = new HashMap<>();

	// The messages that a hold may have ended on their way to each JVM's lines, each
	// flagged once its listener told the cohorts early; and the reads at which a
	// listener did (Attack#CLOCK).
	private final Map<String, List<boolean[]>> lossesOnTheWay = new HashMap<>();

	private final Map<String, List<Long>> earlyLossReads = new HashMap<>();

	private int earlyLosses;

	private final Map<String, Renewals> renewals = new HashMap<>();

	// When each acquire script that granted a hold ran, by owner digest and token.
	private final Map<String, Long> grantsRan = new HashMap<>();

	// Redis holds (owner digest / token) that a force release, an eviction or a failover
	// may have ended or shortened: Redis need not keep them, and their holders (and the
	// cohort's later holders) may overlap others' (rule 8's window).
	private final Set<String> damaged = new java.util.HashSet<>();

	// When each JVM's lines heard a message that a hold may have ended without a release.
	private final Map<String, List<Long>> lossesHeard = new HashMap<>();

	// The highest token any handle showed, the passes of damaged holds included: every
	// grant from Redis must show more.
	private long highestShown;

	private final int[] attackCounts = new int[8];

	// Re-entries of a holder under another owner, observed rather than failed.
	private int rule7;

	// Holds (owner / token) whose release got no reply: the owner's next acquisition may
	// take such a hold over, with its token (a thread's own owner only; rule 1).
	private final Set<String> releasesLost = new java.util.HashSet<>();

	private @Nullable String violation;

	private long sequence;

	private int steps;

	private int redisGrants;

	private int passes;

	private int reentries;

	private int gaveUp;

	private long longestWaitNanos;

	private String longestWait = "nobody waited";

	private final SimulatedPort.World world = new SimulatedPort.World() {

		@Override
		public long nanos() {
			return CohortRun.this.clock.nanos();
		}

		@Override
		public long clockRead(String port) {
			CohortRun.this.reads++;
			noteHandOvers();
			long pause = pauseAt(port);
			if (pause > 0) {
				listenerRuns(port);
				CohortRun.this.clock.advanceNanos(pause);
				CohortRun.this.trace
					.add(String.format("           %s paused %.6f ms at a clock read", port, pause / 1e6));
			}
			return CohortRun.this.clock.nanos();
		}

		@Override
		public UniqueIds ids() {
			return CohortRun.this.ids;
		}

		@Override
		public void at(long delayNanos, String what, Runnable action) {
			CohortRun.this.at(delayNanos, what, action, false);
		}

		@Override
		public void redisAt(long delayNanos, String what, Runnable action) {
			CohortRun.this.at(delayNanos, what, action, true);
		}

		@Override
		public long network() {
			return CohortRun.this.network();
		}

		@Override
		public long replyDelay() {
			boolean paused = CohortRun.this.random.nextInt(10) == 0 && CohortRun.this.faults.contains(Fault.PAUSE);
			return paused ? LockSimulation.aroundConstant(CohortRun.this.random) : network();
		}

		@Override
		public long resend(String operation, ScriptCall call) {
			boolean twice = CohortRun.this.random.nextInt(10) == 0 && CohortRun.this.faults.contains(Fault.RESEND);
			return twice ? network() + CohortRun.this.random.between(0, 3 * MS) : -1;
		}

		@Override
		public LostReplies.@Nullable Cut cut() {
			return CohortRun.this.attacks.contains(Attack.CUT) ? CohortRun.this.lostReplies.draw() : null;
		}

		@Override
		public Object eval(ScriptCall call) {
			return CohortRun.this.handOffOrder.run(call,
					() -> CohortRun.this.redis.eval(call.script().name(), call.keys(), call.argv()));
		}

		@Override
		public void note(String what) {
			CohortRun.this.trace.add(what);
		}

		@Override
		public PubSub pubSub() {
			return CohortRun.this.redis.pubSub();
		}

		@Override
		public void route(PubSub.Subscriber subscriber, @Nullable Consumer<String> heard) {
			if (heard != null) {
				CohortRun.this.listeners.put(subscriber.id(), heard);
			}
			else {
				CohortRun.this.listeners.remove(subscriber.id());
			}
		}

		@Override
		public SimulatedPort.@Nullable Gap subscriptionGap() {
			SimulatedPort.Gap gap = CohortRun.this.gaps.draw(true);
			return (gap != null && CohortRun.this.bug == Bug.GAP_UNTOLD) ? gap.untold() : gap;
		}

		@Override
		public void gapEnded(String port) {
			// A forced release may have been missed: the JVM's lines are told of the gap
			// now, and pass the lock no more in a cohort opened before (rule 4).
			lossHeard(port);
		}

		@Override
		public void heard(String port, String message) {
			if (ReleaseMessage.parse(message.getBytes(java.nio.charset.StandardCharsets.UTF_8)).mayEndAHold()) {
				lossHeard(port);
			}
		}

		private void lossHeard(String port) {
			CohortRun.this.lossesHeard.computeIfAbsent(port.split(" ")[0], (key) -> new ArrayList<>())
				.add(CohortRun.this.clock.nanos());
		}

	};

	/**
	 * @param faults the faults the run may draw from; none for a calm run
	 * @param bug a bug planted into every cohort, or {@code null}
	 */
	CohortRun(long seed, Map<String, String> scripts, Set<Fault> faults, @Nullable Bug bug) {
		this(seed, scripts, faults, Set.of(), bug);
	}

	/**
	 * @param attacks the further faults the run draws ({@link Attack})
	 */
	CohortRun(long seed, Map<String, String> scripts, Set<Fault> faults, Set<Attack> attacks, @Nullable Bug bug) {
		this.seed = seed;
		this.attacks = attacks.isEmpty() ? EnumSet.noneOf(Attack.class) : EnumSet.copyOf(attacks);
		this.extra = new SimulationRandom(seed ^ 0x61747461636bL);
		this.lostReplies = new LostReplies(seed, this.attacks.contains(Attack.CUT), this.attacks.contains(Attack.LATE));
		this.cancellations = new Cancellations(seed);
		this.gaps = new SubscriptionGaps(seed, this.attacks.contains(Attack.SUBSCRIPTION), 1);
		this.redisFaults = new RedisFaults(seed, this.attacks.contains(Attack.FAILOVER),
				this.attacks.contains(Attack.EVICT));
		this.ids = SimulatedIds.of(seed);
		this.pauses = new ClockPauses(seed, this.attacks.contains(Attack.CLOCK));
		this.random = new SimulationRandom(seed ^ 0x636f686fL);
		this.faults = faults.isEmpty() ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(faults);
		this.faults.removeIf((fault) -> this.random.nextInt(3) == 0);
		this.bug = bug;
		int[] holders = { 2, 4, 16 };
		this.limits = new CohortLimits(holders[this.random.nextInt(holders.length)],
				(5 + this.random.nextInt(30)) * MS);
		this.redis = new RedisModel(this.clock);
		scripts.forEach(this.redis::replaceScript);
		this.handOffOrder = new HandOffOrder(this.redis, this::violated);
		this.spec = resolve(this.pauses.minimumHoldMillis());
	}

	/**
	 * Resolve the lock as the engine does: exclusive and reentrant, a 1 s lease, a 3 s
	 * wait, pub/sub, and the given minimum hold, if above 0.
	 */
	private static LockSpec resolve(long minimumHoldMillis) {
		LockRequestResolver resolver = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("sim", 0), false,
				true, new RedisServerFeatures(null, false, false), 5_000);
		LockRequest.Builder request = LockRequest.builder("orders")
			.key("a")
			.lease(Duration.ofMillis(LockSimulation.LEASE_MS))
			.waitTime(Duration.ofSeconds(3))
			.mode(LockMode.EXCLUSIVE);
		if (minimumHoldMillis > 0) {
			request.holdAtLeast(Duration.ofMillis(minimumHoldMillis));
		}
		return resolver.resolve(request.build());
	}

	/**
	 * Run the threads until each has made its acquisitions, or the step budget is spent.
	 * @return what the checks found, or {@code null} if nothing
	 */
	@Nullable String run(int acquisitionsEach) {
		int jvms = 2 + this.random.nextInt(2);
		for (int j = 0; j < jvms; j++) {
			String jvm = "jvm" + j;
			LocalLines lines = new LocalLines(new SimulatedPort(jvm + " lines", this.world),
					LockSimulation.LINGER_NANOS,
					new Cohorts(this.limits, (number) -> jvm + ":cohort:" + number, cohorts()));
			this.linesOf.put(jvm, lines);
			this.renewals.put(jvm, new Renewals(new SimulatedPort(jvm + " watchdog", this.world), () -> false));
			int count = 2 + this.random.nextInt(3);
			for (int t = 0; t < count; t++) {
				Caller caller = new Caller(jvm + "/t" + t, lines, acquisitionsEach);
				this.callers.add(caller);
				at(this.random.between(0, 20 * MS), caller.name + " starts", caller::start, false);
			}
		}
		this.trace.add("cohorts of " + this.limits.holders() + " holders within " + this.limits.timeNanos() / 1e6
				+ " ms; faults " + this.faults + "; attacks " + this.attacks);
		this.redisFaults.start(this.redis);
		for (RedisFaults.Planned fault : this.redisFaults.planned()) {
			at(fault.atNanos(), fault.failover() ? "redis fails over" : "redis evicts", () -> redisFault(fault), true);
		}
		if (this.attacks.contains(Attack.FORCE)) {
			int forces = 1 + this.extra.nextInt(3);
			for (int i = 0; i < forces; i++) {
				at(this.extra.between(0, 2_500 * MS), "an operator force-releases the lock", this::forceRelease, true);
			}
		}
		if (this.faults.contains(Fault.STALL)) {
			at(this.random.between(0, 1_000 * MS), "redis stalls", this::stall, false);
		}
		while (!this.events.isEmpty() && this.steps++ < 200_000 && this.violation == null) {
			Event event = this.events.poll();
			this.clock.advanceTo(Math.max(this.clock.nanos(), event.at));
			if (!this.redis.answering() && event.needsRedis) {
				at(this.redis.stalledUntil() - this.clock.nanos(), event.what, event.action, true);
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
			checkRedisKeepsLiveHandles();
		}
		if (this.violation == null && this.callers.stream().anyMatch((thread) -> !thread.done())) {
			violated("the run ended with a thread that never finished: " + this.callers.stream()
				.filter((thread) -> !thread.done())
				.map((thread) -> thread.name + " left " + thread.left + " pending " + thread.pending)
				.toList());
		}
		return this.violation;
	}

	private void stall() {
		if (this.callers.stream().allMatch(Caller::done)) {
			return;
		}
		long stall = LockSimulation.aroundConstant(this.random);
		this.redis.stall(Duration.ofNanos(stall));
		this.trace.add("           redis stalled for " + stall / 1e6 + " ms");
		at(this.random.between(0, 3_000 * MS), "redis stalls", this::stall, false);
	}

	/**
	 * A failover or an eviction ({@link RedisFaults}). Every hold granted before a
	 * failover may be lost or shortened (a renewal's write lost); an eviction of the lock
	 * hash ends the hold it had.
	 */
	private void redisFault(RedisFaults.Planned fault) {
		if (this.callers.stream().allMatch(Caller::done)) {
			return;
		}
		String key = this.spec.lockKey();
		String before = holdInRedis();
		int writesLostBefore = this.redisFaults.counts()[1];
		String what = this.redisFaults.apply(fault, this.redis, key, LockKeys.permits(key), this.clock.nanos());
		if (what == null) {
			return;
		}
		this.attackCounts[fault.failover() ? 5 : 6]++;
		this.trace.add("           " + what);
		if (fault.failover() && this.redisFaults.counts()[1] > writesLostBefore) {
			// Only a failover that lost writes can have lost a hold or its lease.
			long now = this.clock.nanos();
			this.grantsRan.forEach((hold, ran) -> {
				if (ran - now <= 0) {
					this.damaged.add(hold);
				}
			});
		}
		else if (before != null && !before.equals(holdInRedis())) {
			this.damaged.add(before);
		}
	}

	/**
	 * An operator force-releases the lock, as {@code LockCommands.forceRelease} does: it
	 * reads the token, then runs {@code force-release.lua}, which publishes "forced".
	 */
	private void forceRelease() {
		if (this.callers.stream().allMatch(Caller::done)) {
			return;
		}
		String before = holdInRedis();
		Object token = this.redis.inspect("HGET", this.spec.lockKey(), "token");
		if (before == null || token == null) {
			return;
		}
		ScriptCall call = LockScripts.FORCE_RELEASE.callWithKeys(
				List.of(this.spec.lockKey(), LockKeys.releaseChannel(this.spec.lockKey())),
				new ScriptArgs.ForceRelease(token.toString()));
		Object result = this.redis.eval(call.script().name(), call.keys(), call.argv());
		this.attackCounts[7]++;
		String holders = this.handles.stream()
			.filter((handle) -> before.equals(LockOwners.digest(handle.grant.owner()) + "/" + handle.grant.token()))
			.map((handle) -> handle.grant.owner())
			.distinct()
			.toList()
			.toString();
		if (holders.contains(":cohort:")) {
			this.attackCounts[3]++;
		}
		this.trace.add("           force-released " + before + " " + holders + ": " + result);
		this.damaged.add(before);
	}

	/** Return the hold the lock hash records, as owner digest / token, or null. */
	private @Nullable String holdInRedis() {
		Object owner = this.redis.inspect("HGET", this.spec.lockKey(), "owner");
		Object token = this.redis.inspect("HGET", this.spec.lockKey(), "token");
		return (owner instanceof String digest && !digest.isEmpty() && token != null) ? digest + "/" + token : null;
	}

	private boolean isDamaged(Handle handle) {
		return this.damaged.contains(LockOwners.digest(handle.grant.owner()) + "/" + handle.grant.token());
	}

	/**
	 * Deliver what was published: late, twice, or never.
	 */
	private void deliver() {
		for (PubSub.Delivery delivery : this.redis.pubSub().drain()) {
			Consumer<String> listener = this.listeners.get(delivery.subscriber().id());
			if (listener == null) {
				continue;
			}
			String what = delivery.subscriber().name() + " hears " + delivery.message();
			int fault = this.faults.contains(Fault.MESSAGE) ? this.random.nextInt(40) : 39;
			if (fault == 0) {
				this.trace.add("           dropped: " + what);
				continue;
			}
			long delay = (fault < 4) ? LockSimulation.aroundConstant(this.random) : network();
			if (this.attacks.contains(Attack.FORCE) && delivery.message().equals("forced")
					&& this.extra.nextInt(3) == 0) {
				this.trace.add("           dropped: " + what);
				continue;
			}
			Runnable hear = onTheWay(delivery, () -> listener.accept(delivery.message()));
			at(delay, what, hear, false);
			if (fault == 4 || fault == 5) {
				at(delay + network(), what + " (again)", onTheWay(delivery, hear), false);
			}
		}
	}

	/**
	 * Note a message that a hold may have ended as on its way to its JVM's lines until
	 * the given hearing of it runs, in a run that pauses at clock reads.
	 */
	private Runnable onTheWay(PubSub.Delivery delivery, Runnable hear) {
		byte[] body = delivery.message().getBytes(java.nio.charset.StandardCharsets.UTF_8);
		if (!this.attacks.contains(Attack.CLOCK) || !ReleaseMessage.parse(body).mayEndAHold()) {
			return hear;
		}
		boolean[] told = new boolean[1];
		List<boolean[]> onTheWay = this.lossesOnTheWay.computeIfAbsent(delivery.subscriber().name().split(" ")[0],
				(key) -> new ArrayList<>());
		onTheWay.add(told);
		return () -> {
			onTheWay.remove(told);
			hear.run();
		};
	}

	/**
	 * Every handle a thread counts on now must be in Redis: its Redis owner the lock's,
	 * with a lease that reaches its deadline.
	 */
	private void checkRedisKeepsLiveHandles() {
		long now = this.clock.nanos();
		for (Handle handle : this.handles) {
			if (!handle.live(now) || isDamaged(handle)) {
				continue;
			}
			String wrong = HoldsInRedis.writerViolation(this.redis, this.spec.lockKey(), handle.grant.owner(),
					handle.hold.leaseEndNanos());
			if (wrong != null) {
				violated(handle + " counts on the lock until " + String.format("%.3f ms", at(handle.deadline()))
						+ ", but " + wrong);
				return;
			}
		}
	}

	/**
	 * A thread got a handle, from Redis or by a pass: check it against every promise of a
	 * grant.
	 * @param joined the handle's outer hold, if it is a re-entry that joined it
	 */
	private void granted(Handle handle, @Nullable Handle joined) {
		long now = this.clock.nanos();
		Grant grant = handle.grant;
		boolean damagedPass = isDamaged(handle);
		// A thread's own owner takes over a hold its earlier acquisition left in Redis (a
		// lost release or re-entry reply), with its token; a cohort's owner never does
		// (rule 1).
		boolean takenOver = grant.shownToken() == grant.token() && !grant.owner().contains(":cohort:")
				&& this.handles.stream()
					.anyMatch((other) -> other != handle && other.grant.owner().equals(grant.owner())
							&& other.grant.token() == grant.token() && !other.live(now));
		for (Handle other : this.handles) {
			if (other.caller != handle.caller && other.live(now) && !isDamaged(other) && !damagedPass) {
				violated(handle + " was granted while " + other + " counts on the lock until "
						+ String.format("%.3f ms", at(other.deadline())));
				return;
			}
		}
		if (joined != null) {
			if (grant.shownToken() != joined.grant.shownToken()) {
				violated(handle + " joined " + joined + " but shows another token");
			}
		}
		else if (takenOver) {
			this.trace.add("           " + handle + " took over the hold its owner's lost release left");
		}
		else if (damagedPass) {
			// Ended by a fault before its holder heard of it: no order to keep.
		}
		else if (grant.shownToken() == grant.token() && grant.shownToken() <= this.highestShown) {
			// A grant from Redis: above every token shown, the passes of a lost hold too.
			violated(handle + " was granted by Redis a token not above the highest one shown, " + this.highestShown);
		}
		else if (grant.shownToken() <= this.lastShownToken && !damagedPass) {
			violated(handle + " shows a token not above the last one shown, " + this.lastShownToken);
		}
		if (!damagedPass) {
			this.lastShownToken = Math.max(this.lastShownToken, grant.shownToken());
		}
		this.highestShown = Math.max(this.highestShown, grant.shownToken());
		String hold = grant.owner() + "/" + grant.token();
		if (grant.shownToken() == grant.token()) {
			if (grant.cohort() != null && joined == null) {
				this.openedNanos.putIfAbsent(hold, grant.sentNanos());
				this.openedReads.putIfAbsent(hold, this.reads);
			}
			return;
		}
		if (joined != null) {
			return;
		}
		// A pass: within the block, the holders and the time limit, to a thread that
		// filed no request.
		this.passes++;
		if (damagedPass) {
			this.attackCounts[4]++;
		}
		long k = grant.shownToken() - grant.token() + 1;
		Long block = this.blocks.get(hold);
		Long opened = this.openedNanos.get(hold);
		Long handedAt = this.handedOver.get(hold + "#" + k);
		long passedAt = (handedAt != null) ? handedAt : now;
		if (passedAt != now) {
			this.passesToldLate++;
		}
		if (block == null || k > block || k > this.limits.holders()) {
			violated(handle + " is the cohort's holder " + k + ", but Redis granted a block of " + block
					+ " and cohorts have " + this.limits.holders() + " holders");
		}
		else if (opened == null || passedAt - opened >= this.limits.timeNanos()) {
			violated(handle + " was passed the lock " + ((opened != null) ? (passedAt - opened) / 1e6 : "?")
					+ " ms after its cohort's opening attempt was sent, past the time limit "
					+ this.limits.timeNanos() / 1e6 + " ms");
		}
		else if (handle.caller.sentRequest) {
			violated(handle + " was passed the lock after its acquisition sent a request");
		}
		else {
			long passedRead = this.handedOverReads.getOrDefault(hold + "#" + k, Long.MAX_VALUE);
			long openedRead = this.openedReads.getOrDefault(hold, Long.MAX_VALUE);
			for (long read : this.earlyLossReads.getOrDefault(handle.caller.jvm, List.of())) {
				if (read > openedRead && read < passedRead) {
					violated(handle + " was passed the lock after its JVM's listener told the cohorts of a loss, "
							+ "while a thread was paused (rule 4)");
				}
			}
			for (long heard : this.lossesHeard.getOrDefault(handle.caller.jvm, List.of())) {
				if (heard - opened > 0) {
					violated(handle + " was passed the lock after its JVM's lines heard, at "
							+ String.format("%.3f ms", at(heard)) + ", that the hold may be gone (rule 4)");
				}
			}
		}
	}

	private void violated(String what) {
		if (this.violation == null) {
			this.violation = String.format("%.3f ms: %s", at(this.clock.nanos()), what);
		}
	}

	/**
	 * Record how long an acquisition waited; in a run without faults, it must neither
	 * give up nor wait a lease, which only a missed wake-up explains.
	 */
	private void waited(Caller caller, long startedNanos, boolean won) {
		long waited = this.clock.nanos() - startedNanos;
		if (!won) {
			this.gaveUp++;
		}
		if (waited > this.longestWaitNanos) {
			this.longestWaitNanos = waited;
			this.longestWait = String.format("%s %s %.3f ms, from %.3f ms", caller.name,
					won ? "waited" : "gave up after", waited / 1e6, at(startedNanos));
		}
		long bound = this.attacks.isEmpty() ? CALM_WAIT_BOUND_NANOS : LockSimulation.LEASE_MS * MS;
		if (this.faults.isEmpty() && LIVE_ATTACKS.containsAll(this.attacks) && (!won || waited >= bound)) {
			violated("in a run without faults " + this.longestWait + " (after " + this.rule7
					+ " re-entries of a holder under its own owner)");
		}
	}

	/**
	 * Return what makes the run's cohorts: the engine's own, or with the run's bug
	 * planted into each.
	 */
	private Cohorts.Maker cohorts() {
		Bug planted = this.bug;
		if (planted == null) {
			return Cohort::new;
		}
		return switch (planted) {
			case PAST_BLOCK -> PlantedCohortBugs.passingPastBlock();
			case PAST_TIME_LIMIT -> PlantedCohortBugs.passingPastTimeLimit();
			case LEASE_FROM_PASS -> PlantedCohortBugs.leaseFromPass();
			case SHOWS_FIRST_TOKEN -> PlantedCohortBugs.showingFirstToken();
			case ANY_REENTRY -> PlantedCohortBugs.reenteringAnyCaller();
			// Planted into each hold (Handle), or into the port (the world's gaps).
			case RELEASES_SHOWN_TOKEN, GAP_UNTOLD -> Cohort::new;
		};
	}

	/**
	 * Note the time of each pass made since the last clock read ({@link #handedOver}): a
	 * cohort of the lock with a holder more.
	 */
	private void noteHandOvers() {
		if (!this.attacks.contains(Attack.CLOCK)) {
			return;
		}
		for (LocalLines lines : this.linesOf.values()) {
			Cohort cohort = lines.cohorts().current(this.spec.lockKey());
			int holders = (cohort != null) ? cohort.holders() : 0;
			if (holders > 1) {
				String pass = cohort.owner() + "/" + cohort.firstToken() + "#" + holders;
				this.handedOver.putIfAbsent(pass, this.clock.nanos());
				this.handedOverReads.putIfAbsent(pass, this.reads);
			}
		}
	}

	/**
	 * Draw a pause of the thread that reads the clock through the port
	 * ({@link Attack#CLOCK}), about the moments its JVM's checks compare readings with:
	 * the time limit and the lease end of the lock's cohort, the minimum hold of the
	 * JVM's latest live hold.
	 */
	private long pauseAt(String port) {
		if (!this.attacks.contains(Attack.CLOCK)) {
			return 0;
		}
		long now = this.clock.nanos();
		String jvm = port.split("[ /]")[0];
		LocalLines lines = this.linesOf.get(jvm);
		Cohort cohort = (lines != null) ? lines.cohorts().current(this.spec.lockKey()) : null;
		long untilTimeLimit = (cohort != null) ? cohort.openedNanos() + this.limits.timeNanos() - now : -1;
		long untilLeaseEnd = (cohort != null) ? cohort.leaseEnd().nanos() - now : -1;
		long untilMinimumHold = -1;
		for (Handle handle : this.handles) {
			if (handle.caller.jvm.equals(jvm) && handle.live(now)) {
				untilMinimumHold = handle.grantedNanos + this.pauses.minimumHoldMillis() * MS - now;
			}
		}
		return this.pauses.draw(untilTimeLimit, untilLeaseEnd, untilMinimumHold);
	}

	/**
	 * While the thread that reads the clock through the port is paused, its JVM's
	 * listener thread, with a message in hand that the lock's hold may have ended, gets
	 * as far as telling the cohorts ({@link ListenerSteps}): the first step of hearing
	 * it, which takes none of the locks the paused thread may hold. The message is heard
	 * in full, again, when it is delivered.
	 */
	private void listenerRuns(String port) {
		String jvm = port.split("[ /]")[0];
		LocalLines lines = this.linesOf.get(jvm);
		boolean[] message = this.lossesOnTheWay.getOrDefault(jvm, List.of())
			.stream()
			.filter((told) -> !told[0])
			.findFirst()
			.orElse(null);
		Cohort cohort = (lines != null) ? lines.cohorts().current(this.spec.lockKey()) : null;
		if (message == null || cohort == null || cohort.isEnded()) {
			return;
		}
		message[0] = true;
		this.earlyLosses++;
		this.earlyLossReads.computeIfAbsent(jvm, (key) -> new ArrayList<>()).add(this.reads);
		this.trace.add("           " + jvm + "'s listener tells its cohorts of a loss while " + port + " is paused");
		ListenerSteps.lossHeard(lines.cohorts(), this.spec.lockKey());
	}

	private long network() {
		return this.random.nextInt(10) == 0 ? this.random.between(0, 5 * MS) : this.random.between(0, 100_000);
	}

	private void at(long delay, String what, Runnable action, boolean needsRedis) {
		this.events.add(new Event(this.clock.nanos() + Math.max(0, delay), this.sequence++, what, action, needsRedis));
	}

	private static double at(long nanos) {
		return (nanos - 1_000_000 * MS) / 1e6;
	}

	String report() {
		return String.format("seed %d: %d holds from Redis, %d passes, %d re-entries, %d gave up; longest wait: %s",
				this.seed, this.redisGrants, this.passes, this.reentries, this.gaveUp, this.longestWait);
	}

	int passes() {
		return this.passes;
	}

	long longestWaitNanos() {
		return this.longestWaitNanos;
	}

	int redisGrants() {
		return this.redisGrants;
	}

	/**
	 * Return how many attempts took a lock reserved for their request: each was checked
	 * to be that request's ({@link HandOffOrder}).
	 */
	long reservedTaken() {
		return this.handOffOrder.reservedTaken();
	}

	String trace(int last) {
		List<String> tail = this.trace.subList(Math.max(0, this.trace.size() - last), this.trace.size());
		return "seed " + this.seed + " (cohorts), last " + tail.size() + " of " + this.trace.size() + " events:\n"
				+ String.join("\n", tail);
	}

	/**
	 * A re-entry's request: a try (wait 0) or a 3 s wait, with another lease or the same.
	 */
	private static LockSpec otherSpec(SimulationRandom random) {
		long[] leases = { 300, LockSimulation.LEASE_MS, 3_000 };
		long lease = leases[random.nextInt(leases.length)];
		long wait = random.nextInt(2) == 0 ? 0 : 3_000;
		LockRequestResolver resolver = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("sim", 0), false,
				true, new RedisServerFeatures(null, false, false), 5_000);
		return resolver.resolve(LockRequest.builder("orders")
			.key("a")
			.lease(Duration.ofMillis(lease))
			.waitTime(Duration.ofMillis(wait))
			.mode(LockMode.EXCLUSIVE)
			.build());
	}

	/**
	 * Return how many subscriptions had a gap, and how many of those gaps ended them.
	 */
	int[] subscriptionGaps() {
		return this.gaps.counts();
	}

	/**
	 * Return how many clock reads paused, how many of them about a moment of a check, how
	 * many passes their next holder heard of after a pause that followed the hand-over,
	 * and how many losses a listener told the cohorts of during a pause.
	 */
	int[] clockPauses() {
		int[] counts = this.pauses.counts();
		return new int[] { counts[0], counts[1], this.passesToldLate, this.earlyLosses };
	}

	String attackReport() {
		return String.format(
				"cancels %d, extensions %d, failed acquisitions %d, failovers %d, evictions %d, forced %d (%d of cohorts), "
						+ "damaged %d, passes of damaged holds %d, lost replies %s, subscription gaps %s, "
						+ "clock pauses %s (%d passes told late)",
				this.attackCounts[0], this.attackCounts[1], this.attackCounts[2], this.attackCounts[5],
				this.attackCounts[6], this.attackCounts[7], this.attackCounts[3], this.damaged.size(),
				this.attackCounts[4], java.util.Arrays.toString(this.lostReplies.counts()),
				java.util.Arrays.toString(this.gaps.counts()), java.util.Arrays.toString(this.pauses.counts()),
				this.passesToldLate);
	}

	/**
	 * Further faults a run may draw, each from draws of its own.
	 */
	enum Attack {

		/** Commands lose their reply ({@link LostReplies}). */
		CUT,

		/** Half the cut commands that run, run after their timeout. */
		LATE,

		/** Acquisitions are cancelled, at drawn times and as a pass may reach them. */
		CANCEL,

		/**
		 * The watchdog renews half the holds; some are released about when it renews
		 * them.
		 */
		RENEW,

		/** Some renewed holders work for a lease or more. */
		LONG,

		/** Holds are extended to shorter and longer leases. */
		EXTEND,

		/**
		 * Re-entries with other leases, tries, released in either order, the outer hold
		 * released while the re-entry is in flight.
		 */
		REENTER,

		/** The lock is force-released by an operator, with its "forced" message. */
		FORCE,

		/** Redis evicts keys of the lock ({@link RedisFaults}). */
		EVICT,

		/** Redis fails over to a lagging replica ({@link RedisFaults}). */
		FAILOVER,

		/**
		 * The lines' subscriptions lose their connection for a while, and what is
		 * published meanwhile ({@link SubscriptionGaps}).
		 */
		SUBSCRIPTION,

		/**
		 * In half the runs, threads are paused at clock reads, about the moments the
		 * checks compare with ({@link ClockPauses}); the lock has a minimum hold in half
		 * of those.
		 */
		CLOCK

	}

	/**
	 * A bug planted into every cohort, which the run's checks must find.
	 */
	enum Bug {

		/** Passes past the block Redis granted. */
		PAST_BLOCK,

		/** Passes past the time limit. */
		PAST_TIME_LIMIT,

		/**
		 * A pass counts the lease again from its own time: a deadline Redis does not
		 * keep.
		 */
		LEASE_FROM_PASS,

		/** A passed holder shows the block's first token. */
		SHOWS_FIRST_TOKEN,

		/** Any caller's acquisition, a previous holder's too, re-enters the cohort. */
		ANY_REENTRY,

		/** A release sends the token its handle shows, not the one Redis records. */
		RELEASES_SHOWN_TOKEN,

		/**
		 * The port hears again after a gap in a subscription without telling the lines,
		 * which so never learn that a forced release may have been missed (with
		 * {@link Attack#SUBSCRIPTION} only).
		 */
		GAP_UNTOLD

	}

	/**
	 * One handle a thread got: the engine's own hold, as the blocking handle keeps it.
	 */
	private final class Handle implements LockHold.Events {

		final Caller caller;

		final Grant grant;

		final LockHold hold;

		// When its grant was read, from which its minimum hold counts.
		final long grantedNanos;

		Handle(Caller caller, Grant grant, LocalLines lines) {
			this.caller = caller;
			this.grant = grant;
			long now = CohortRun.this.clock.nanos();
			this.grantedNanos = now;
			this.hold = (CohortRun.this.bug == Bug.RELEASES_SHOWN_TOKEN)
					? PlantedHoldBugs.releasingShownToken(grant, now, true, this, lines)
					: new LockHold(grant, now, true, this, lines);
		}

		long deadline() {
			return this.hold.leaseEndNanos();
		}

		boolean live(long nowNanos) {
			return !this.hold.isReleased() && !this.hold.isLost() && deadline() - nowNanos > 0;
		}

		@Override
		public void released(LockHold hold, long result) {
		}

		/**
		 * No run here loses a reply.
		 */
		@Override
		public void releaseFailed(LockHold hold, io.github.distributedlock.LockAccessException failure) {
			CohortRun.this.releasesLost.add(this.grant.owner() + "/" + this.grant.token());
			if (!CohortRun.this.attacks.contains(Attack.CUT)) {
				violated(this + ": its release failed with no reply lost: " + failure.getMessage());
			}
			CohortRun.this.trace.add("           " + this + ": its release failed: " + failure.getMessage());
		}

		@Override
		public void releasedAfter(LockHold hold, Duration heldFor) {
		}

		/**
		 * A reply said the hold is gone: its holder counts on it no more
		 * ({@link LockHold#isLost}).
		 */
		@Override
		public void lost(LockHold hold, boolean goneFromRedis) {
		}

		@Override
		public String toString() {
			return this.caller.name + "'s hold (token " + this.grant.shownToken() + ", Redis " + this.grant.owner()
					+ "/" + this.grant.token() + ")";
		}

	}

	/**
	 * One thread of a JVM: it takes the lock as the blocking template does, works,
	 * sometimes re-enters it, and releases it, as many times as asked. Each cycle (an
	 * acquisition, its holds, its re-entries) ends once nothing of it is pending.
	 */
	private final class Caller implements SimulatedPort.Calls {

		final String name;

		final String jvm;

		private final String owner;

		private final LocalLines lines;

		private final SimulatedPort port;

		private final DriverCommands commands;

		private int left;

		private boolean acquiring;

		// What the cycle under way waits for: acquisitions and holds not yet ended.
		private int pending;

		// The acquisition under way that a cancel may stop, if any, and the port and
		// completion that tell its end once what it sent settled, a cancel's too.
		private @Nullable Acquiring current;

		private @Nullable SettledRun<Grant> settling;

		// Whether the acquisition under way sent an attempt that carried a request.
		boolean sentRequest;

		private long startedNanos;

		Caller(String name, LocalLines lines, int acquisitions) {
			this.name = name;
			this.jvm = name.substring(0, name.indexOf('/'));
			this.owner = name.replace('/', ':');
			this.lines = lines;
			this.left = acquisitions;
			this.port = new SimulatedPort(name, CohortRun.this.world, this);
			this.commands = new DriverCommands(this.port, Long.parseLong(FENCE_IDLE_MS), true, EngineParts.NO_WATCH);
		}

		boolean done() {
			return this.left <= 0 && this.pending == 0;
		}

		void start() {
			if (this.left-- <= 0) {
				return;
			}
			this.pending = 1;
			this.acquiring = true;
			this.sentRequest = false;
			this.startedNanos = CohortRun.this.clock.nanos();
			// As the blocking template does: a caller that holds the lock under a cohort
			// re-enters it; nobody else does here, as none holds it.
			CohortReentry reentry = CohortReentry.start(this.lines, CohortRun.this.spec, this.owner);
			Acquiring run = acquire(CohortRun.this.spec, reentry, false, Completion.of(this::got, this::failed),
					() -> this.acquiring = false);
			mayCancel(run);
		}

		/**
		 * Start the acquisition as both templates do ({@link AcquisitionRun#of}): a
		 * re-entry under a cohort's owner through the driver's
		 * {@link CohortReentry#acquisition}, which ends the re-entry on the run's end or
		 * cancel. Its end is told once it settled ({@link SettledRun}), as both templates
		 * tell it, a cancel's too.
		 * @param stopped what the caller does once a cancel that stopped it settled,
		 * before it goes on
		 */
		private Acquiring acquire(LockSpec spec, @Nullable CohortReentry reentry, boolean holdsIt,
				Completion<Grant> done, Runnable stopped) {
			long wait = spec.waitNanos();
			SettledRun<Grant> settled = new SettledRun<>(this.port, Completion.of(done::granted, (error) -> {
				if (error instanceof LockInterruptedException) {
					// The cancel's end, told once what the run sent settled.
					stopped.run();
					end();
				}
				else {
					done.failed(error);
				}
			}), LockSimulation.SETTLE_NANOS, (wait < 0) ? -1 : wait + LockSimulation.SETTLE_NANOS);
			Acquiring acquisition = AcquisitionRun.of(spec, this.owner, reentry, holdsIt, true, true,
					this.commands.on(settled), this.lines, settled);
			this.current = acquisition;
			this.settling = settled;
			acquisition.start();
			return acquisition;
		}

		/**
		 * Draw whether the acquisition is cancelled, as the template does on an interrupt
		 * or its grace bound: at a drawn time ({@link Cancellations}).
		 */
		private void mayCancel(Acquiring run) {
			if (!CohortRun.this.attacks.contains(Attack.CANCEL)) {
				return;
			}
			Cancellations.Stop stop = CohortRun.this.cancellations.draw();
			if (stop != null) {
				at(stop.delayNanos(), this.name + " is cancelled", () -> cancel(run), false);
			}
		}

		/**
		 * Stop the acquisition as a blocking caller's interrupt does
		 * ({@code CallerWait.await}): the driver's cancel, then, if it stopped a running
		 * one, the run's {@link SettledRun#cancelled}, which tells the cancel's error
		 * once what the run sent settled; the caller goes on then, as after an exception.
		 */
		void cancel(Acquiring run) {
			SettledRun<Grant> settled = this.settling;
			if (this.current != run || settled == null || !run.cancel()) {
				return;
			}
			CohortRun.this.attackCounts[0]++;
			CohortRun.this.trace.add("           " + this.name + "'s acquisition stopped");
			this.current = null;
			this.settling = null;
			settled.cancelled(new LockInterruptedException(CohortRun.this.spec.name(), new InterruptedException()));
		}

		private void got(Grant grant) {
			this.acquiring = false;
			this.current = null;
			this.settling = null;
			waited(this, this.startedNanos, true);
			Handle handle = new Handle(this, grant, this.lines);
			CohortRun.this.handles.add(handle);
			if (grant.shownToken() == grant.token()) {
				CohortRun.this.redisGrants++;
			}
			granted(handle, null);
			SimulationRandom random = CohortRun.this.random;
			boolean paused = random.nextInt(8) == 0 && CohortRun.this.faults.contains(Fault.PAUSE);
			long work = paused ? LockSimulation.aroundConstant(random) : random.between(0, 3 * MS);
			work = attacked(handle, work);
			// The hold is pending instead of the acquisition.
			this.pending++;
			end();
			if (random.nextInt(4) == 0) {
				long finalWork = work;
				at(random.between(0, work), this.name + " re-enters", () -> reenter(handle, finalWork), false);
			}
			else {
				at(work, this.name + " releases", () -> release(handle), false);
			}
		}

		/**
		 * The attacks on a hold: the watchdog renews it, its holder works a lease or
		 * more, and extends it to a shorter or a longer lease.
		 * @return how long the holder works
		 */
		private long attacked(Handle handle, long work) {
			SimulationRandom extra = CohortRun.this.extra;
			long worked = work;
			if (CohortRun.this.attacks.contains(Attack.RENEW) && extra.nextInt(2) == 0) {
				CohortRun.this.renewals.get(this.jvm).watch(handle.hold);
				int long_ = extra.nextInt(6);
				if (long_ == 0 && CohortRun.this.attacks.contains(Attack.LONG)) {
					worked = extra.between(LockSimulation.LEASE_MS * MS, 2_500 * MS);
				}
				else if (long_ == 1) {
					// Released about when the watchdog renews it.
					long lease = handle.grant.spec().leaseMillis() * MS;
					long renewal = handle.hold.leaseEndNanos() - lease + lease / 3;
					worked = Math.max(0, renewal - CohortRun.this.clock.nanos() + extra.between(-MS, MS));
				}
			}
			if (CohortRun.this.attacks.contains(Attack.EXTEND) && extra.nextInt(4) == 0) {
				long[] leases = { 100, 300, 1_000, 3_000 };
				long lease = leases[extra.nextInt(leases.length)];
				at(extra.between(0, worked), this.name + " extends its hold to " + lease + " ms",
						() -> handle.hold
							.extend(this.port, lease,
									Completion.of((result) -> CohortRun.this.attackCounts[1]++,
											(error) -> CohortRun.this.trace
												.add("           " + this.name + "'s extension failed: " + error))),
						false);
			}
			return worked;
		}

		/**
		 * Take the lock again, as the blocking template does: under the cohort's owner if
		 * this thread holds it under one, else as itself, saying it holds the lock. Then
		 * release the nested hold and the outer one: in that order, the other, or the
		 * outer one while the re-entry is still in flight.
		 */
		private void reenter(Handle outer, long work) {
			SimulationRandom extra = CohortRun.this.extra;
			boolean variants = CohortRun.this.attacks.contains(Attack.REENTER);
			LockSpec spec = variants ? otherSpec(extra) : CohortRun.this.spec;
			int order = variants ? extra.nextInt(4) : 0;
			boolean outerDuring = order == 3;
			boolean outerFirst = order == 2;
			CohortReentry reentry = CohortReentry.start(this.lines, spec, this.owner);
			String as = (reentry != null) ? reentry.owner() : this.owner;
			if (!as.equals(outer.grant.owner()) && outer.live(CohortRun.this.clock.nanos()) && !isDamaged(outer)
					&& HoldsInRedis.writerViolation(CohortRun.this.redis, CohortRun.this.spec.lockKey(),
							outer.grant.owner(), CohortRun.this.clock.nanos()) == null) {
				String wrong = this.name + " re-enters the lock it holds (" + outer + ", live in Redis) as " + as
						+ ", not as the owner Redis records for its hold (rule 7)";
				if (Boolean.getBoolean("simulation.observe")) {
					CohortRun.this.trace.add("           VIOLATION " + wrong);
					CohortRun.this.rule7++;
				}
				else {
					violated(wrong);
				}
			}
			this.pending++;
			Completion<Grant> done = Completion.of((shown) -> {
				this.current = null;
				this.settling = null;
				CohortRun.this.reentries++;
				Handle inner = new Handle(this, shown, this.lines);
				CohortRun.this.handles.add(inner);
				boolean joinedIt = shown.owner().equals(outer.grant.owner()) && shown.token() == outer.grant.token();
				granted(inner, joinedIt ? outer : null);
				long innerWork = attacked(inner, CohortRun.this.random.between(0, work));
				this.pending++;
				end();
				if (outerDuring) {
					at(innerWork, this.name + " releases its re-entry", () -> release(inner), false);
				}
				else if (outerFirst) {
					at(innerWork, this.name + " releases its outer hold first",
							() -> outer.hold.release(this.port,
									Completion.of((result) -> thenRelease(inner), (error) -> thenRelease(inner))),
							false);
				}
				else if (variants && extra.nextInt(2) == 0) {
					// Again, still holding the outer hold.
					at(innerWork, this.name + " releases its re-entry, to re-enter again", () -> inner.hold.release(
							this.port,
							Completion.of((result) -> reenterAgain(outer, work), (error) -> reenterAgain(outer, work))),
							false);
				}
				else {
					at(innerWork, this.name + " releases its re-entry",
							() -> inner.hold.release(this.port,
									Completion.of((result) -> thenRelease(outer), (error) -> thenRelease(outer))),
							false);
				}
			}, (error) -> {
				this.current = null;
				this.settling = null;
				if (!(error instanceof LockTimeoutException)) {
					mayFail(error);
				}
				if (!outerDuring) {
					at(work, this.name + " releases", () -> release(outer), false);
				}
				end();
			});
			Acquiring run = acquire(spec, reentry, true, done, () -> {
				if (!outerDuring) {
					at(work, this.name + " releases", () -> release(outer), false);
				}
			});
			mayCancel(run);
			if (outerDuring) {
				at(extra.between(0, 2 * MS), this.name + " releases its outer hold during its re-entry",
						() -> release(outer), false);
			}
		}

		private void reenterAgain(Handle outer, long work) {
			at(CohortRun.this.extra.between(0, 2 * MS), this.name + " re-enters again", () -> {
				// The inner hold ends once the next re-entry is under way.
				reenter(outer, work);
				end();
			}, false);
		}

		private void thenRelease(Handle handle) {
			end();
			release(handle);
		}

		private void release(Handle handle) {
			if (CohortRun.this.attacks.contains(Attack.CANCEL) && handle.grant.cohort() != null
					&& CohortRun.this.extra.nextInt(4) == 0) {
				// A waiter of this JVM cancelled at the instant the hold may pass to it:
				// just before, or just after.
				boolean before = CohortRun.this.extra.nextInt(2) == 0;
				if (before) {
					cancelWaiters();
				}
				handle.hold.release(this.port, Completion.of((result) -> end(), (error) -> end()));
				if (!before) {
					cancelWaiters();
				}
				return;
			}
			handle.hold.release(this.port, Completion.of((result) -> end(), (error) -> end()));
		}

		private void cancelWaiters() {
			for (Caller other : CohortRun.this.callers) {
				Acquiring run = other.current;
				if (other != this && other.jvm.equals(this.jvm) && other.acquiring && run != null) {
					CohortRun.this.trace
						.add("           " + other.name + " is cancelled as " + this.name + " releases");
					other.cancel(run);
				}
			}
		}

		private void failed(Throwable error) {
			this.current = null;
			this.settling = null;
			if (!(error instanceof LockTimeoutException)) {
				mayFail(error);
			}
			this.acquiring = false;
			waited(this, this.startedNanos, false);
			end();
		}

		/**
		 * An acquisition failed otherwise than by its wait time: only a fault explains
		 * it.
		 */
		private void mayFail(Throwable error) {
			boolean explained = error instanceof LockAccessException && (CohortRun.this.attacks.contains(Attack.CUT)
					|| !CohortRun.this.damaged.isEmpty() || CohortRun.this.redisFaults.counts()[2] > 0);
			if (!explained) {
				throw new IllegalStateException(this.name + ": " + error, error);
			}
			CohortRun.this.attackCounts[2]++;
			CohortRun.this.trace.add("           " + this.name + "'s acquisition failed: " + error);
		}

		private void end() {
			if (--this.pending == 0) {
				next();
			}
			else if (this.pending < 0) {
				violated(this.name + " ended more than it began");
			}
		}

		private void next() {
			at(CohortRun.this.random.between(0, 5 * MS), this.name + " goes on", this::start, false);
		}

		@Override
		public boolean sending(String operation, ScriptCall call) {
			if (this.acquiring && call.args() instanceof ScriptArgs.Acquire acquire && acquire.request() != null
					&& !acquire.request().isEmpty()) {
				this.sentRequest = true;
			}
			return true;
		}

		/**
		 * Note the block Redis granted a hold, and when it granted it.
		 */
		@Override
		public void ran(String operation, ScriptCall call, Object reply) {
			if (call.args() instanceof ScriptArgs.Acquire acquire && reply instanceof List<?> result
					&& result.size() >= 2 && Long.valueOf(1).equals(result.get(0))) {
				String hold = acquire.owner() + "/" + result.get(1);
				CohortRun.this.grantsRan.put(LockOwners.digest(acquire.owner()) + "/" + result.get(1),
						CohortRun.this.clock.nanos());
				if (result.size() > 2 && result.get(2) instanceof Long block) {
					CohortRun.this.blocks.put(hold, block);
					if (block > 1 && CohortRun.this.attacks.contains(Attack.FORCE)
							&& CohortRun.this.extra.nextInt(6) == 0) {
						// While the cohort passes, within its time limit.
						at(CohortRun.this.extra.between(0, CohortRun.this.limits.timeNanos()),
								"an operator force-releases the lock", CohortRun.this::forceRelease, true);
					}
				}
				else {
					// A re-entry's reply, or one of a hold that asked for no block.
					CohortRun.this.blocks.putIfAbsent(hold, 1L);
				}
			}
		}

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
