package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.LockSimulation.Fault;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.SimulatedIds;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.driver.Renewals;
import io.github.distributedlock.redis.driver.SettledRun;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.simulation.PubSub;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;
import io.github.distributedlock.simulation.VirtualClock;
import org.jspecify.annotations.Nullable;

/**
 * One run of multi-locks ({@code acquireAll}) beside single locks of the same names, on a
 * virtual clock: some clients take two or three of three exclusive locks at once with the
 * engine's own driver ({@code AllLocksAcquisition}, {@link MultiClient}), or, in half of
 * the runs ({@link #takesInOrder}), one by one as on a Cluster whose hash slots split
 * them ({@code InOrderAcquisition}, {@link InOrderClient}: a command timeout drawn per
 * run, and in half of those runs locks renewed while held, else a set lease that may run
 * out while a later lock is waited for); the others take one of those locks at a time
 * with its {@code SingleAcquisition}, as the single-lock clients of
 * {@link LockSimulation} do ({@link SingleLockClient}), each client over a
 * {@link SimulatedPort} of its own; in half of the runs (drawn from a PRNG of its own)
 * the last of those takes the read lock of its name instead. Each name's holds are
 * checked by a {@link HoldChecker} of its own, and after every event each hold a client
 * counts on must be in Redis until its deadline: a writer's lock its owner's, with no
 * live reader; a reader's owner among the readers, with its hold, and no writer.
 * <p>
 * {@link LockSimulation} runs it instead of its own clients in a quarter of the seeds,
 * drawn from a PRNG of its own ({@link #draws}), so that the other seeds run exactly as
 * they did. Faults: Redis stalls, release messages dropped, duplicated or late, scripts
 * run twice with only the second reply delivered, clients paused before they read a reply
 * or while they work; and, for a quarter of the multi-locks' waits, a cancel
 * ({@link Fault#CANCEL}).
 * <p>
 * What a holder does with its hold is drawn from a PRNG of its own ({@link HoldWork}), so
 * that a run that draws none of it is the run it was: a multi-lock's holds renewed as the
 * watchdog renews them ({@link Fault#RENEW}), extended ({@link Fault#EXTEND}), kept for a
 * minimum hold at release ({@link Fault#MULTI_KEEP}), one of them re-entered as a single
 * lock, and a single lock re-entered by a multi-lock ({@link Fault#REENTER}); and, in a
 * third of the runs with re-entries, the clients are two custom owners of two clients
 * each, so that a multi-lock joins a single lock's hold of its owner and the reverse.
 * Each hold's deadline is the engine's own {@code HoldLife} ({@link ClientHold}). Checked
 * besides: a lock kept for a minimum hold is granted to nobody until the keep ends, and
 * Redis keeps it that long ({@link KeptLock}).
 */
final class MultiLockRun {

	static final long MS = LockSimulation.MS;

	static final String FENCE_IDLE_MS = "600000";

	/**
	 * How long past its end a client's acquisition may take to settle: its ports have no
	 * command timeout (a reply comes whenever it ran, however long a pause or a stall
	 * holds it back), so its clients wait as a template that knows none does
	 * ({@code CallerWait}): {@link SettledRun#UNKNOWN_TIMEOUT_SETTLE_NANOS}, with no
	 * bound on the call (seed 1061: a multi-lock client cancelled in flight went on after
	 * a settle time of 1 s, while the reply of its attempt, which Redis had granted, was
	 * held back 2.5 s; its next attempt found its own holds).
	 */
	static final long SETTLE_NANOS = SettledRun.UNKNOWN_TIMEOUT_SETTLE_NANOS;

	// The seed of the PRNG that draws whether the multi-locks are taken in order, the
	// command timeout of such runs, and whether their locks are renewed.
	private static final long IN_ORDER_SEED = 0x696e6f72L;

	// The names the clients take, one lock each.
	private static final List<String> KEYS = List.of("a", "b", "c");

	private final long seed;

	private final UniqueIds ids;

	private final SimulationRandom random;

	private final VirtualClock clock = new VirtualClock(1_000_000 * MS);

	private final RedisModel redis;

	private final Set<Fault> faults;

	private final LockSimulation.ClientBug clientBug;

	// The locks, by key in the order of KEYS, and each one's checker.
	private final Map<String, LockSpec> specs = new LinkedHashMap<>();

	private final MultiLockChecks checks;

	// What a release promises the waiters in line (HandOffOrder), and its first finding.
	private final HandOffOrder handOffOrder;

	private @Nullable String handOffViolation;

	// The read locks of the same names, which a reading client takes.
	private final Map<String, LockSpec> readSpecs = new LinkedHashMap<>();

	// Whether the last client reads (in half of the runs, drawn from a PRNG of its own,
	// so that the other runs are the runs they were).
	private final boolean readers;

	// The locks resolved with a minimum hold, by key and length.
	private final Map<String, LockSpec> keptSpecs = new HashMap<>();

	// What holders do with their holds, drawn from a PRNG of its own.
	private final SimulationRandom life;

	// Whether the clients are two custom owners of two clients each (in a third of the
	// runs with re-entries, drawn from a PRNG of its own).
	private final boolean sharedOwners;

	private final long[] counted = new long[Counted.values().length];

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private final List<String> trace = new ArrayList<>();

	// Who hears what each subscription hears.
	private final Map<Integer, Consumer<String>> listeners = new HashMap<>();

	private final List<MultiClient> multiClients = new ArrayList<>();

	// Whether the multi-lock clients take their locks one by one, as on a Cluster whose
	// slots split them (in half of the runs, drawn from a PRNG of its own), and their
	// calls.
	private final boolean inOrder;

	// Whether the write locks are renewed by the watchdog while held (autoRenew): in half
	// of the runs that take them in order, drawn from that same PRNG; else their lease is
	// set, and a lock taken first may run out while a later one is waited for.
	private final boolean renewed;

	private final InOrderCalls inOrderCalls;

	private final List<InOrderClient> inOrderClients = new ArrayList<>();

	// Each client's port for its holds' extensions and releases, and its watchdog.
	private final Map<String, SimulatedPort> holdPorts = new HashMap<>();

	private final Map<String, Renewals> renewals = new HashMap<>();

	// The command whose reply a caller is hearing now.
	private @Nullable String hearing;

	private final SimulatedPort.World world = new SimulatedPort.World() {

		@Override
		public long nanos() {
			return MultiLockRun.this.clock.nanos();
		}

		@Override
		public UniqueIds ids() {
			return MultiLockRun.this.ids;
		}

		@Override
		public void at(long delayNanos, String what, Runnable action) {
			MultiLockRun.this.at(delayNanos, what, action);
		}

		@Override
		public void redisAt(long delayNanos, String what, Runnable action) {
			MultiLockRun.this.redisAt(delayNanos, what, action);
		}

		@Override
		public long network() {
			return MultiLockRun.this.network();
		}

		@Override
		public long replyDelay() {
			return MultiLockRun.this.replyDelay();
		}

		@Override
		public long resend(String operation, ScriptCall call) {
			boolean twice = MultiLockRun.this.random.nextInt(10) == 0
					&& MultiLockRun.this.faults.contains(Fault.RESEND);
			return twice ? network() + MultiLockRun.this.random.between(0, 3 * MS) : -1;
		}

		@Override
		public LostReplies.@Nullable Cut cut() {
			return null;
		}

		@Override
		public Object eval(ScriptCall call) {
			return MultiLockRun.this.eval(call);
		}

		@Override
		public void note(String what) {
			MultiLockRun.this.trace.add(what);
		}

		@Override
		public void hearing(@Nullable String operation, long sentNanos) {
			MultiLockRun.this.hearing = operation;
		}

		@Override
		public PubSub pubSub() {
			return MultiLockRun.this.redis.pubSub();
		}

		@Override
		public void route(PubSub.Subscriber subscriber, @Nullable Consumer<String> heard) {
			if (heard != null) {
				MultiLockRun.this.listeners.put(subscriber.id(), heard);
			}
			else {
				MultiLockRun.this.listeners.remove(subscriber.id());
			}
		}

		@Override
		public SimulatedPort.@Nullable Gap subscriptionGap() {
			return MultiLockRun.this.gaps.draw(true);
		}

	};

	private final List<SingleLockClient> singleClients = new ArrayList<>();

	private long sequence;

	private long scripts;

	private int steps;

	private int multiHolds;

	private int lateMultiGrants;

	private int multiGaveUp;

	private int singleGaveUp;

	private long longestMultiWaitNanos;

	private long longestSingleWaitNanos;

	private String longestMultiWait = "no multi-lock waited";

	private String longestSingleWait = "no single lock waited";

	// The cancels of the multi-locks' waits, drawn from a PRNG of their
	// own.
	private final Cancellations cancellations;

	private final SubscriptionGaps gaps;

	/**
	 * Return whether a seed runs multi-locks: a quarter of the seeds, drawn from a PRNG
	 * of its own.
	 */
	static boolean draws(long seed) {
		return new SimulationRandom(seed ^ 0x6d756c74L).nextInt(4) == 0;
	}

	/**
	 * Return whether a seed takes multi-locks in order ({@link InOrderClient}): half of
	 * the seeds that run multi-locks, drawn from a PRNG of its own.
	 */
	static boolean takesInOrder(long seed) {
		return draws(seed) && new SimulationRandom(seed ^ IN_ORDER_SEED).nextInt(2) == 0;
	}

	MultiLockRun(long seed, Map<String, String> scripts, LockSimulation.ClientBug clientBug, Set<Fault> faults) {
		this.seed = seed;
		this.ids = SimulatedIds.of(seed);
		this.random = new SimulationRandom(seed ^ 0x6d756c74L);
		this.random.nextInt(4);
		this.clientBug = clientBug;
		this.faults = faults.isEmpty() ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(faults);
		this.cancellations = new Cancellations(seed ^ 0x6d756c74L);
		this.gaps = new SubscriptionGaps(seed ^ 0x6d756c74L, this.faults.contains(Fault.SUBSCRIPTION), 4);
		this.redis = new RedisModel(this.clock);
		this.handOffOrder = new HandOffOrder(this.redis, (found) -> {
			if (this.handOffViolation == null) {
				this.handOffViolation = found;
			}
		});
		this.checks = new MultiLockChecks(this.redis, this::counted, this::note, () -> this.hearing);
		scripts.forEach(this.redis::replaceScript);
		this.readers = new SimulationRandom(seed ^ 0x72656164L).nextInt(2) == 0;
		this.life = new SimulationRandom(seed ^ 0x6c696665L);
		this.sharedOwners = new SimulationRandom(seed ^ 0x6f776e73L).nextInt(3) == 0
				&& this.faults.contains(Fault.REENTER);
		SimulationRandom order = new SimulationRandom(seed ^ IN_ORDER_SEED);
		this.inOrder = order.nextInt(2) == 0;
		this.inOrderCalls = new InOrderCalls(
				LostReplies.TIMEOUTS_MS[order.nextInt(LostReplies.TIMEOUTS_MS.length)] * MS);
		this.renewed = this.inOrder && order.nextInt(2) == 0;
		for (String key : KEYS) {
			LockSpec spec = LockRequestResolver
				.multiLockable(resolve(key, LockMode.EXCLUSIVE, this.sharedOwners, 0, this.renewed));
			this.readSpecs.put(key, resolve(key, LockMode.READ, false, 0, false));
			this.specs.put(key, spec);
			this.checks.lock(spec.lockKey());
		}
	}

	/**
	 * Resolve one lock as the engine does: a 1 s lease, a 3 s wait, pub/sub, reentrant
	 * for shared custom owners, a minimum hold if {@code holdAtLeastMillis} is above 0,
	 * renewed by the watchdog while held if {@code renewed} (else not: its lease is set).
	 */
	private static LockSpec resolve(String key, LockMode mode, boolean reentrant, long holdAtLeastMillis,
			boolean renewed) {
		LockRequestResolver resolver = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("sim", 0), false,
				true, new RedisServerFeatures(null, false, false), 5_000);
		LockRequest.Builder request = LockRequest.builder("orders")
			.key(key)
			.lease(Duration.ofMillis(LockSimulation.LEASE_MS))
			.waitTime(Duration.ofSeconds(3))
			.reentrant(reentrant)
			.autoRenew(renewed)
			.mode(mode);
		if (holdAtLeastMillis > 0) {
			request.holdAtLeast(Duration.ofMillis(holdAtLeastMillis));
		}
		return resolver.resolve(request.build());
	}

	/**
	 * Run the clients until each has made its acquisitions, or the step budget is spent:
	 * the first one to three clients take multi-locks, the others single locks.
	 * @return what the checkers found, or {@code null} if nothing
	 */
	@Nullable String run(int clients, int acquisitionsEach) {
		int multis = Math.min(clients, 1 + this.random.nextInt(3));
		for (int i = 0; i < clients; i++) {
			String name = "c" + i;
			// An owner that reads may not also write (an upgrade deadlocks): the reader's
			// pair don't share an owner.
			boolean readersPair = this.readers && i / 2 == (clients - 1) / 2;
			String owner = (this.sharedOwners && !readersPair) ? "custom:shared-" + (i / 2) : "owner-c" + i;
			Runnable start;
			String role;
			if (i < multis && this.inOrder) {
				InOrderClient client = new InOrderClient(this, name, owner, acquisitionsEach);
				this.inOrderClients.add(client);
				start = client::start;
				role = " (takes multi-locks in order)";
			}
			else if (i < multis) {
				MultiClient client = new MultiClient(this, name, owner, acquisitionsEach);
				this.multiClients.add(client);
				start = client::start;
				role = " (takes multi-locks)";
			}
			else {
				boolean reads = this.readers && i == clients - 1;
				SingleLockClient client = new SingleLockClient(this, name, owner, acquisitionsEach, reads);
				this.singleClients.add(client);
				start = client::start;
				role = reads ? " (reads single locks)" : " (takes single locks)";
			}
			at(this.random.between(0, 50 * MS),
					name + " starts" + role + (owner.startsWith("custom:") ? " as " + owner : ""), start);
		}
		if (this.faults.contains(Fault.STALL)) {
			at(this.random.between(0, 2_000 * MS), "redis stalls", this::stall);
		}
		while (!this.events.isEmpty() && this.steps++ < 200_000) {
			Event event = this.events.poll();
			this.clock.advanceTo(Math.max(this.clock.nanos(), event.at));
			if (!this.redis.answering() && event.needsRedis) {
				at(this.redis.stalledUntil(), event.what, event.action, true);
				continue;
			}
			this.trace.add(String.format("%9.3f ms  %s", (this.clock.nanos() - 1_000_000 * MS) / 1e6, event.what));
			try {
				event.action.run();
			}
			catch (RuntimeException ex) {
				return event.what + " failed: " + ex;
			}
			deliver();
			this.checks.checkLiveHolds();
			String found = violation();
			if (found != null) {
				return found;
			}
		}
		return violation();
	}

	private @Nullable String violation() {
		String found = this.checks.violation();
		return (found != null) ? found : this.handOffViolation;
	}

	private void stall() {
		boolean done = this.multiClients.stream().allMatch(MultiClient::done)
				&& this.inOrderClients.stream().allMatch(InOrderClient::done)
				&& this.singleClients.stream().allMatch(SingleLockClient::done);
		if (done) {
			return;
		}
		long stall = aroundConstant();
		this.redis.stall(Duration.ofNanos(stall));
		this.trace.add("           redis stalled for " + stall / 1e6 + " ms");
		at(this.random.between(0, 3_000 * MS), "redis stalls", this::stall);
	}

	/**
	 * Deliver what was published: late, twice, replayed later, or never.
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
			long delay = (fault < 4) ? aroundConstant() : network();
			at(delay, what, () -> listener.accept(delivery.message()));
			if (fault == 4 || fault == 5) {
				at(delay + ((fault == 4) ? network() : aroundConstant()), what + " (again)",
						() -> listener.accept(delivery.message()));
			}
		}
	}

	/**
	 * Return the lock of a key: its write lock, or its read lock.
	 */
	LockSpec spec(String key, boolean read) {
		return (read ? this.readSpecs : this.specs).get(key);
	}

	List<String> keys() {
		return KEYS;
	}

	/**
	 * Return a lock with a minimum hold, or the lock itself for none.
	 */
	LockSpec spec(String key, long holdAtLeastMillis) {
		if (holdAtLeastMillis <= 0) {
			return this.specs.get(key);
		}
		return this.keptSpecs.computeIfAbsent(key + "/" + holdAtLeastMillis, (k) -> LockRequestResolver
			.multiLockable(resolve(key, LockMode.EXCLUSIVE, this.sharedOwners, holdAtLeastMillis, this.renewed)));
	}

	/**
	 * Return the checks of the locks, which the clients tell of their holds.
	 */
	MultiLockChecks checks() {
		return this.checks;
	}

	void counted(Counted what) {
		this.counted[what.ordinal()]++;
	}

	/**
	 * How long a client works with its locks: a few milliseconds, or, paused, about a
	 * protocol constant (past its lease, sometimes).
	 */
	long work() {
		return (this.random.nextInt(8) == 0 && this.faults.contains(Fault.PAUSE)) ? aroundConstant()
				: this.random.between(0, 3 * MS);
	}

	/**
	 * Record how long an acquisition waited, from its start to its end.
	 */
	void waited(String who, boolean multi, long startedNanos, boolean won) {
		long now = this.clock.nanos();
		long waited = now - startedNanos;
		String what = String.format("%s %s %.3f ms, from %.3f ms to %.3f ms", who, won ? "waited" : "gave up after",
				waited / 1e6, at(startedNanos), at(now));
		if (multi) {
			this.multiGaveUp += won ? 0 : 1;
			if (waited > this.longestMultiWaitNanos) {
				this.longestMultiWaitNanos = waited;
				this.longestMultiWait = what;
			}
		}
		else {
			this.singleGaveUp += won ? 0 : 1;
			if (waited > this.longestSingleWaitNanos) {
				this.longestSingleWaitNanos = waited;
				this.longestSingleWait = what;
			}
		}
	}

	void multiHeld(boolean late) {
		if (late) {
			this.lateMultiGrants++;
		}
		else {
			this.multiHolds++;
		}
	}

	/**
	 * Return what the clients' ports need of the run: its clock and events, its draws (no
	 * lost replies: those are {@link LockSimulation}'s), and its model of Redis.
	 */
	SimulatedPort.World world() {
		return this.world;
	}

	/**
	 * Return how many subscriptions had a gap, and how many of those gaps ended them.
	 */
	int[] subscriptionGaps() {
		return this.gaps.counts();
	}

	Cancellations cancellations() {
		return this.cancellations;
	}

	/**
	 * Return whether the multi-lock clients take their locks one by one
	 * ({@link InOrderClient}).
	 */
	boolean inOrder() {
		return this.inOrder;
	}

	/**
	 * Return whether the write locks are renewed by the watchdog while held, as a
	 * multi-lock's locks taken in order are with no lease given.
	 */
	boolean renewed() {
		return this.renewed;
	}

	/**
	 * Return the calls of the clients that take their locks in order, and their bound.
	 */
	InOrderCalls inOrderCalls() {
		return this.inOrderCalls;
	}

	/**
	 * Return whether the run does a fault or hold operation it draws.
	 */
	boolean draws(Fault fault) {
		return this.faults.contains(fault);
	}

	LockSimulation.ClientBug clientBug() {
		return this.clientBug;
	}

	void note(String what) {
		this.trace.add("           " + what);
	}

	/**
	 * Return what a client won, kept as the engine keeps it: each hold extended and
	 * released on a port of the client's own, and renewed by the client's watchdog (each
	 * client is a JVM of its own in these runs).
	 */
	HeldLocks heldLocks(String holder, String owner, List<ClientHold> holds) {
		SimulatedPort port = this.holdPorts.computeIfAbsent(holder, (name) -> new SimulatedPort(name, this.world));
		Renewals renewals = this.renewals.computeIfAbsent(holder,
				(name) -> new Renewals(new SimulatedPort(name + " watchdog", this.world), () -> false));
		return new HeldLocks(this, holder, owner, holds, port, renewals);
	}

	long nanos() {
		return this.clock.nanos();
	}

	SimulationRandom random() {
		return this.random;
	}

	/**
	 * Return the PRNG of what holders do with their holds ({@link HoldWork}).
	 */
	SimulationRandom life() {
		return this.life;
	}

	/**
	 * Return whether the clients are two custom owners of two clients each.
	 */
	boolean sharedOwners() {
		return this.sharedOwners;
	}

	/**
	 * Return how many of each thing the holders did with their holds ({@link Counted}),
	 * in its order.
	 */
	long[] counts() {
		return this.counted.clone();
	}

	static double at(long nanos) {
		return (nanos - 1_000_000 * MS) / 1e6;
	}

	void at(long delay, String what, Runnable action) {
		at(this.clock.nanos() + delay, what, action, false);
	}

	void redisAt(long delay, String what, Runnable action) {
		at(this.clock.nanos() + delay, what, action, true);
	}

	private void at(long at, String what, Runnable action, boolean needsRedis) {
		this.events.add(new Event(at, this.sequence++, what, action, needsRedis));
	}

	/**
	 * A network delay: mostly tens of microseconds, sometimes milliseconds.
	 */
	long network() {
		return this.random.nextInt(10) == 0 ? this.random.between(0, 5 * MS) : this.random.between(0, 100_000);
	}

	/**
	 * How long a reply takes to be acted on: a network delay, or a client paused around a
	 * constant.
	 */
	long replyDelay() {
		return (this.random.nextInt(10) == 0 && this.faults.contains(Fault.PAUSE)) ? aroundConstant() : network();
	}

	private long aroundConstant() {
		return LockSimulation.aroundConstant(this.random);
	}

	Object eval(ScriptCall call) {
		this.scripts++;
		return this.handOffOrder.run(call, () -> this.redis.eval(call.script().name(), call.keys(), call.argv()));
	}

	// What LockSimulation reports for a run, for this one.

	long seed() {
		return this.seed;
	}

	int holds() {
		return this.checks.holds();
	}

	/**
	 * Return how many of the holds were read holds.
	 */
	int readHolds() {
		return this.checks.readHolds();
	}

	/**
	 * Return whether a client read.
	 */
	boolean readers() {
		return this.readers && this.singleClients.stream().anyMatch(SingleLockClient::reader);
	}

	/**
	 * Return how many multi-locks were held, and how many grants of them came too late to
	 * use (and were taken again or released).
	 */
	int[] multiHolds() {
		return new int[] { this.multiHolds, this.lateMultiGrants };
	}

	/**
	 * Return how many multi-lock waits a cancel ended at once, how many it ended with the
	 * reply of an attempt in flight, and how many of those had a grant released.
	 */
	int[] cancelled() {
		return this.cancellations.counts();
	}

	/**
	 * Return how many multi-lock and single-lock acquisitions gave up, in that order.
	 */
	int[] gaveUp() {
		return new int[] { this.multiGaveUp, this.singleGaveUp };
	}

	/**
	 * Return a sanity bound on a multi-lock waiter's wait in a run without faults, not a
	 * promise: less than the locks' lease. The guarantees' bound holds for a multi-lock
	 * waiter only while its other locks are free (it keeps its place only in the line of
	 * the lock that blocks it, and may lose it each time another lock blocks it), so none
	 * of theirs applies. But holds last at most 3 ms there, and the release of a lock an
	 * attempt found taken tells its waiters, so a wait as long as a lease means a waiter
	 * slept until a holder's lease ran out (a missed wake-up), or lost the race to its
	 * locks some sixty times in a row.
	 */
	static long calmMultiWaitBoundNanos() {
		return LockSimulation.LEASE_MS * MS;
	}

	long longestMultiWaitNanos() {
		return this.longestMultiWaitNanos;
	}

	long longestSingleWaitNanos() {
		return this.longestSingleWaitNanos;
	}

	String longestWait() {
		return this.longestMultiWait + "; " + this.longestSingleWait;
	}

	int steps() {
		return this.steps;
	}

	long scripts() {
		return this.scripts;
	}

	void muteHandOffOracles() {
		this.handOffOrder.mute();
	}

	long reservationsChecked() {
		return this.handOffOrder.checked();
	}

	/**
	 * Return how many runs filed a request that was in its line already, each checked to
	 * keep its place ({@link LineOrder}).
	 */
	long refilingsChecked() {
		return this.handOffOrder.refilingsChecked();
	}

	/**
	 * Return the requests left in the locks' lines once the run is over.
	 */
	List<?> requestsLeft() {
		this.clock.advanceTo(Math.max(this.clock.nanos(), this.redis.stalledUntil()));
		List<Object> left = new ArrayList<>();
		for (LockSpec spec : this.specs.values()) {
			Object requests = this.redis.inspect("ZRANGE", LockKeys.requests(spec.lockKey()), "0", "-1");
			if (requests instanceof List<?> list) {
				list.forEach((request) -> left.add(spec.lockKey() + " " + request));
			}
		}
		return left;
	}

	/**
	 * Return the keys left once the longest lease and claim have passed, but the fencing
	 * counters.
	 */
	List<String> keysLeft() {
		this.clock.advanceTo(this.clock.nanos() + 5_000 * MS + HandOffRequest.CLAIM_MILLIS * MS);
		List<String> fences = this.specs.values().stream().map((spec) -> LockKeys.fence(spec.lockKey())).toList();
		return this.redis.keys().stream().filter((key) -> !fences.contains(key)).sorted().toList();
	}

	List<String> events() {
		return List.copyOf(this.trace);
	}

	String trace(int last) {
		List<String> tail = this.trace.subList(Math.max(0, this.trace.size() - last), this.trace.size());
		return "seed " + this.seed + " (multi-locks), last " + tail.size() + " of " + this.trace.size() + " events:\n"
				+ String.join("\n", tail);
	}

	/**
	 * What the holders did with their holds, counted for the report.
	 */
	enum Counted {

		/** A hold's renewal confirmed. */
		RENEWED,

		/** A hold's extension confirmed. */
		EXTENDED,

		/** A multi-lock's hold re-entered as a single lock. */
		REENTERED_SINGLY,

		/** A single lock's hold re-entered by a multi-lock. */
		REENTERED_BY_A_MULTI_LOCK,

		/** A hold joined another client's hold of the same custom owner. */
		JOINED,

		/** A release kept its lock for what was left of its minimum hold. */
		KEPT

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
