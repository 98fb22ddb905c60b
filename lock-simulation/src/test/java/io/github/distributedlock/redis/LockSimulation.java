package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.FairTurn;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.HoldLife;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.core.ReleaseMessage;
import io.github.distributedlock.redis.core.SimulatedIds;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.core.WaitLine;
import io.github.distributedlock.redis.core.Waiting;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.SettledRun;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.FairAcquisition;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.driver.PlantedHoldBugs;
import io.github.distributedlock.redis.driver.RegisteredHold;
import io.github.distributedlock.redis.driver.ReplicaWait;
import io.github.distributedlock.redis.driver.SingleAcquisition;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptReplies;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.simulation.PubSub;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;
import io.github.distributedlock.simulation.VirtualClock;
import org.jspecify.annotations.Nullable;

/**
 * One run of the lock protocol on a virtual clock: simulated clients take and release one
 * lock on a {@link RedisModel} that runs the engine's own scripts, and each client
 * acquires with the engine's own driver ({@link SingleAcquisition} in its JVM's
 * {@link LocalLines}) over a {@link SimulatedPort}, whose timers are events of the run,
 * and whose scripts and subscriptions reach the model with the run's faults. A seeded
 * PRNG picks every delay and fault, so one seed gives one run, event for event.
 * <p>
 * In half of the runs two of the four clients read: they take the read lock of the same
 * name (a {@link LockSpec} of kind {@link LockKind#READ}, resolved by the engine's own
 * {@link LockRequestResolver}, as the writers' is), through the same {@code Acquisition},
 * and so share the line of requests, the release channel and the writer intent with the
 * writers. In a third of the runs every client takes a permit of a semaphore of the same
 * name instead, of 1 to 3 permits (a spec of kind {@link LockKind#PERMIT}, resolved from
 * {@code LockRequest.builder(...).permits(n)}), through the same {@code Acquisition},
 * which files no request for them: permits don't line up. The mix is drawn from a PRNG of
 * its own, so a run where all clients write or two read draws what it drew before permits
 * came.
 * <p>
 * Faults, each drawn around the protocol's timing constants (the leases, the claim, the
 * lease-end margin, the renewal period): a client paused before it uses a hold or sends a
 * release, or before it reads a reply; a Redis stall; a release message dropped,
 * duplicated or delivered late; a command run twice with only the second reply delivered
 * (Lettuce's re-send after a reconnect); a command that runs, or never reaches Redis, and
 * whose reply never comes ({@link LostReplies}: the client fails it after its command
 * timeout, as the engine does); a holder that keeps working past its lease. In a quarter
 * of the runs each (drawn from a PRNG of their own, {@link RedisFaults}), Redis fails
 * over to a lagging replica or evicts keys; what that loses of the holds is exempted from
 * the checks, and only that ({@link LostState}). A hold that an attempt or a release
 * without a reply left to nobody must be gone soon after Redis answers its client again
 * ({@link OrphanedHolds}); in half of the runs of thread owners their locks are
 * reentrant, the engine's default ({@link Fault#REENTRANT}), so that such an owner's next
 * acquisition joins the hold it left.
 * <p>
 * A hold may be renewed as the watchdog does (every lease/3, with its own lease: a
 * writer's in a batch, a reader's or a permit's by an extension), extended to a shorter
 * or longer lease, and a writer's re-entered by its owner with another lease (the nested
 * hold renewed or extended in turn, and released first). Each hold's deadline is the
 * engine's own {@link HoldLife}, fed by the replies in the order they arrive.
 * <p>
 * A quarter of the writers' acquisitions hold the lock at least a minimum hold
 * ({@code holdAtLeast}, resolved into their spec by the engine's resolver) of about 50
 * ms, 150 ms or the lock's 1 s (just below, at, just above, never past the lease), drawn
 * from a PRNG of their own ({@link Fault#KEEP}); a nested hold has its outer hold's. Each
 * release passes on what is left of it, counted as the engine's handle counts it: from
 * when the grant's reply was read, in whole milliseconds held. Until the later of that
 * reply + the minimum hold (the end the engine promises, capped by the hold's deadline:
 * the lease caps it) and the release's run + what it passed on (at the server's
 * millisecond), no hold of another token may be granted, whoever its owner: the releasing
 * owner's included, as the kept lock is owned by nobody; only a client of the same custom
 * owner may join a hold of that token still live in Redis. Once its reply is read, the
 * lock must be in Redis until that end, owned by nobody or still by the releasing owner,
 * with a TTL that reaches it. Readers and permits draw minimum holds too
 * ({@link SharedKeeps}): no writer is granted while a kept reader's stand-in should
 * stand, and a kept permit counts as taken until its minimum hold ends. The
 * {@link HoldChecker} checks the history (readers may overlap readers, nobody else
 * overlaps another owner; at most N permits at once), and after every event each live
 * hold's deadline is held to Redis: a writer's lock must still be its owner's, live at
 * least until then, with no live reader of another owner; a reader's owner must still be
 * among the readers, scored at least until then, with its hold in its owner's list and no
 * writer of another owner; a permit's member ({@code <owner digest>|<hold>}) must be in
 * the permits set, scored at least until then. For runs without faults it measures how
 * long a client waits for a permit while one is free in Redis, and how long each
 * acquisition waits besides the time the lock was kept for a minimum hold, which a waiter
 * waits out.
 * <p>
 * A quarter of the acquisitions are stopped while they wait ({@link Fault#CANCEL}, drawn
 * from a PRNG of their own in {@link Cancellations}) with the driver's
 * {@code AcquisitionRun.cancel()}: a waiting acquisition ends at once (its request
 * withdrawn, its writer intent dropped), and one with an attempt in flight ends with the
 * reply, releasing a grant it brings (the release's reply read before the client goes
 * on). Cancels stay on in runs without faults, where no waiter that was not stopped may
 * wait past the bound.
 * <p>
 * In a quarter of the runs of locks (drawn from a PRNG of its own) every client waits
 * with {@link WaitStrategy#POLLING}, resolved by the engine's resolver with the standard
 * poll interval: it acts on no message, and wakes on its timer only
 * ({@link Acquisition#sleepNanos()}, capped by the poll interval); its hand-off request's
 * claim is the poller's ({@code WaitMode.newRequest}). Pollers' waits are measured in
 * runs without faults, not held to a bound.
 * <p>
 * In a quarter of the other runs of locks, read locks and fair locks (drawn from a PRNG
 * of its own, {@link KeyspaceWaits}) every client's request asks for
 * {@link WaitStrategy#KEYSPACE_EVENTS}: the writers' and fair waiters' specs wait so
 * (readers' resolve to pub/sub, as the engine resolves them), the model publishes
 * keyspace notifications ({@code Kgx}), with Redis's active expiry every 100 ms, and each
 * line subscribes the channels its {@code WaitMode} gives and hears them, with the
 * message faults, through a {@link WaitLine} in keyspace mode.
 * <p>
 * In a third of the runs (drawn from a PRNG of its own) the clients share JVMs
 * ({@link JvmLayout}, drawn from a PRNG of its own): in half of those two to a JVM, c0
 * and c1 in one, c2 and c3 in the other; in a quarter c0, c1 and c2 in one and c3 in the
 * other; in a quarter all four in one. The clients of a JVM share its {@link LocalLines}
 * (one port of the JVM's subscribes), as the engine's waiters of one lock in one JVM do:
 * one subscription and one line per lock kind ({@code LockSpec.queueId}), where only the
 * head talks to Redis. In the other runs each client has lines of its own.
 * <p>
 * In half of the runs of the plain lock (not fair, permit, multi-lock or polling) where
 * clients share JVMs, and an eighth of the others (drawn from a PRNG of its own, so that
 * the other runs are the runs they were), the writers' waits are progress-aware
 * ({@code LockRequest.progressAwareTimeout}, resolved by the engine's resolver): the
 * engine's {@link Acquisition} restarts the wait time when a reply shows another holder
 * or a reservation for someone else is heard, and a waiter queued in a local line
 * restarts it from its {@link WaitLine}'s last progress when its turn's wait runs out
 * ({@link Waiting#turnTimedOut(long)}). In runs without faults, such a wait that gives up
 * must not have seen a hold of another owner granted within its last wait time, but for
 * the slack of a message and a round trip at either end.
 * <p>
 * In a quarter of the runs (drawn from a PRNG of its own) every client takes the fair
 * lock of the name instead, and waits as the engine's fair drivers do
 * ({@link FairAcquisition}: the engine's {@link FairTurn} and {@link LockKind#FAIR}
 * scripts); in runs without Redis stalls or shared custom owners its waiters must be
 * granted in the order they joined the queue ({@link FairOrder}).
 * <p>
 * Not simulated: the JVM's scheduler, Lettuce's reconnect logic, readers' re-entries and
 * nested permits; the chaos suite keeps covering those on real processes. In a quarter of
 * the runs (drawn from a PRNG of its own) clients take multi-locks beside single locks of
 * the same names instead: a {@link MultiLockRun}, whose {@link MultiClient}s run the
 * engine's own {@link MultiAcquisition}.
 */
final class LockSimulation {

	static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	// How long past its end a run may take to settle: the longest command timeout drawn.
	static final long SETTLE_NANOS = (LostReplies.TIMEOUTS_MS[LostReplies.TIMEOUTS_MS.length - 1] + 1) * MS;

	static final long LEASE_MS = 1_000;

	// What the runs held to the bound may draw: the callers' acts, no fault.
	private static final Set<Fault> CALM = EnumSet.of(Fault.KEEP, Fault.READ_KEEP, Fault.PERMIT_KEEP, Fault.CANCEL,
			Fault.TRY);

	// How many acquisitions each client makes once faults stop ({@link #recover}).
	static final int RECOVERY_ACQUISITIONS = 8;

	// The leases of extensions and nested holds: shorter and longer than the lock's.
	static final long[] OTHER_LEASES_MS = { 150, LEASE_MS, 2_500 };

	// Redis keeps expiries in whole milliseconds, set from its clock's millisecond.
	static final long REDIS_MS_SLACK = MS;

	static final String FENCE_IDLE_MS = "600000";

	// Every acquisition's wait time.
	static final long WAIT_MS = 3_000;

	/**
	 * How long a JVM's local line stays subscribed after its last waiter left: the
	 * engine's default subscription linger.
	 */
	static final long LINGER_NANOS = 2_000 * MS;

	// The wait time of progress-aware writers: short enough that waits behind locks kept
	// for a minimum hold of 1 s give up in runs without faults (and so are checked), far
	// longer than a wait's bound there and than the slack below.
	static final long PROGRESS_WAIT_MS = 400;

	// The seed of the draw of progress-aware waits, xor the run's ("prog").
	static final long PROGRESS_SEED = 0x70726f67L;

	// The seed of the draw of reentrant thread owners, xor the run's ("reen").
	static final long REENTRANT_SEED = 0x7265656eL;

	// How long after a grant in Redis a progress-aware waiter may still give up without
	// having learnt of it, and how long before it the waiter may have taken its wait
	// from a message about it (a reservation heard before the grant): in a run without
	// faults a message, or each way of a round trip, takes at most 5 ms (network()), and
	// a waiter learns of a grant by a message and an attempt (one message and one round
	// trip), or its line's head does and marks it.
	static final long PROGRESS_SLACK_NANOS = 3 * 5 * MS;

	private final long seed;

	private final UniqueIds ids;

	private final SimulationRandom random;

	private final VirtualClock clock = new VirtualClock(1_000_000 * MS);

	private final RedisModel redis;

	private final HoldChecker checker;

	private final HandOffOrder handOffOrder;

	// How many reserved: messages deliver() dropped, and the requests whose reserved:
	// message someone heard.
	private long droppedReservationMessages;

	private final Set<String> heardReservations = new HashSet<>();

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private final List<String> trace = new ArrayList<>();

	// The writers' lock and the readers' read lock of the same name, as the engine
	// resolves them.
	private final LockSpec spec;

	private final LockSpec readSpec;

	// The permits of the semaphore of the same name that every client takes instead, in
	// some runs, or 0; and its spec.
	private final int permits;

	private final LockSpec permitSpec;

	// Which pair of clients (c0 and c1, or c2 and c3) read, or -1 if all write.
	private final int readerPair;

	private final Map<Integer, Client> clients = new java.util.HashMap<>();

	// The local lines of the clients, by the id of their subscription.

	// How the clients are spread over JVMs: each in a JVM of its own, or several to a
	// JVM, sharing its local line of each lock kind.
	private final JvmLayout layout;

	// The local lines of each JVM, by JVM and queue id (a JVM's readers and writers of
	// one name wait in two lines, as in the engine).

	// Acquisitions that waited for their turn in a local line, and those whose wait ran
	// out there.
	// The driver's local lines of each simulated JVM (of each client, alone), by its
	// name, and where each subscription's messages go.
	private final Map<String, LocalLines> driverLines = new java.util.HashMap<>();

	private final Map<Integer, java.util.function.Consumer<String>> routes = new java.util.HashMap<>();

	private final SimulatedPort.World world = new SimulatedPort.World() {

		@Override
		public long nanos() {
			return LockSimulation.this.clock.nanos();
		}

		@Override
		public UniqueIds ids() {
			return LockSimulation.this.ids;
		}

		@Override
		public void at(long delayNanos, String what, Runnable action) {
			LockSimulation.this.at(delayNanos, what, action);
		}

		@Override
		public void redisAt(long delayNanos, String what, Runnable action) {
			LockSimulation.this.redisAt(delayNanos, what, action);
		}

		@Override
		public long network() {
			return LockSimulation.this.network();
		}

		@Override
		public long replyDelay() {
			return LockSimulation.this.replyDelay();
		}

		@Override
		public long resend(String operation, ScriptCall call) {
			// A hold's commands and a re-entry's attempts run twice in one in ten, the
			// driver's other commands in one in twenty.
			int odds = switch (operation) {
				case "renew", "extend", "release" -> 10;
				default -> reentering(operation, call) ? 10 : 20;
			};
			boolean twice = LockSimulation.this.random.nextInt(odds) == 0 && drawing(Fault.RESEND);
			return twice ? network() + LockSimulation.this.random.between(0, 3 * MS) : -1;
		}

		private boolean reentering(String operation, ScriptCall call) {
			return operation.equals("acquire") && LockSimulation.this.clients.values()
				.stream()
				.anyMatch((client) -> client.reentryHold != null && call.argv().contains(client.reentryHold));
		}

		@Override
		public LostReplies.@Nullable Cut cut() {
			return LockSimulation.this.lostReplies.draw();
		}

		@Override
		public long commandTimeoutNanos() {
			return LockSimulation.this.commandTimeoutNanos;
		}

		@Override
		public Object eval(ScriptCall call) {
			return LockSimulation.this.eval(call);
		}

		@Override
		public void note(String what) {
			LockSimulation.this.trace.add(what);
		}

		@Override
		public PubSub pubSub() {
			return LockSimulation.this.redis.pubSub();
		}

		@Override
		public void route(PubSub.Subscriber subscriber, java.util.function.@Nullable Consumer<String> heard) {
			if (heard != null) {
				LockSimulation.this.routes.put(subscriber.id(), heard);
			}
			else {
				LockSimulation.this.routes.remove(subscriber.id());
			}
		}

		@Override
		public SimulatedPort.@Nullable Gap subscriptionGap() {
			return LockSimulation.this.subscriptionGaps.draw(drawing(Fault.SUBSCRIPTION));
		}

		@Override
		public void hearing(@Nullable String operation, long sentNanos) {
			LockSimulation.this.hearing = operation;
			LockSimulation.this.hearingSentNanos = sentNanos;
		}

	};

	// The command whose reply (or failure) a caller is hearing now, and when it was
	// sent: what a hold's events are about.
	private @Nullable String hearing;

	private long hearingSentNanos = -1;

	// The holds in flight that a fault took and a failover which lost writes brought back
	// (lostInFlight), by hold id.
	private final java.util.Set<String> broughtBackInFlight = new java.util.HashSet<>();

	// The watchdog of each simulated JVM (of each client, alone), by its name.
	private final Map<String, HoldRegistry> registries = new java.util.HashMap<>();

	private final ClientBug clientBug;

	private final boolean sharedOwners;

	// Whether the clients' locks are reentrant (the engine's default) though they are
	// thread owners.
	private final boolean threadsReenter;

	private final Set<Fault> faults;

	private long sequence;

	private long scripts;

	// Renewals, extensions and re-entries whose replies said the hold is there, and
	// holds taken while another client of the same owner held the lock.
	private final long[] confirmedLeases = new long[4];

	private int steps;

	// The longest time from a client's start to its grant, and the acquisitions that
	// gave up.
	private long longestWaitNanos;

	private String longestWait = "nobody waited";

	// The most an acquisition waited past its own client's bound (JvmLayout.holdsAhead),
	// and whose wait it was.
	private long mostPastOwnBoundNanos = Long.MIN_VALUE;

	private String mostPastOwnBound = "nobody waited";

	// The longest time an acquiring client waited while a permit was free in Redis.
	private long longestFreePermitWaitNanos;

	private String longestFreePermitWait = "nobody waited beside a free permit";

	private int gaveUp;

	private int gaveUpBehindKept;

	// The writers' tries (wait 0), drawn from a PRNG of their own so that drawing them
	// changes no other choice; and how many of them were refused.
	private final SimulationRandom tries;

	private int triesRefused;

	private int intentsDropped;

	// The minimum holds of the writers' acquisitions, drawn from a PRNG of their own so
	// that drawing them changes no other choice; the specs resolved with them, by length.
	private final SimulationRandom minimumHolds;

	private final Map<Long, LockSpec> keptSpecs = new java.util.HashMap<>();

	// The locks kept for a minimum hold after their last release: nobody but a hold of
	// the same token (one still live in Redis) may be granted before each ends.
	private final List<KeptLock> kept = new ArrayList<>();

	// Every one of them, for the time waiters spent behind a kept lock.
	private final List<KeptLock> keptHistory = new ArrayList<>();

	// By hold id: whether the lock was kept with the hold's token when its release first
	// ran (heldAgain).
	private final Map<String, Boolean> keptBeforeRelease = new java.util.HashMap<>();

	// In runs with keyspace waiters, when a del or expired of the lock's or its readers'
	// key was published, in order.
	private final List<Long> keysGoneNanos = new ArrayList<>();

	private long keptReleases;

	// The minimum holds of readers and permits, and the stand-ins their releases leave.
	private final SharedKeeps sharedKeeps;

	// The cancels of waiting acquisitions, drawn from a PRNG of their own.
	private final Cancellations cancellations;

	private final SubscriptionGaps subscriptionGaps;

	// The commands whose reply never comes, drawn from a PRNG of their own.
	private final LostReplies lostReplies;

	// How the clients wait: pub/sub, or, in some runs of locks, polling or keyspace
	// events.
	private final WaitStrategy waitStrategy;

	// The draws of keyspace waits: whether the run has them, and when Redis's active
	// expiry runs.
	private final SimulationRandom keyspace;

	// Whether every client takes the fair lock of the name (then none reads, takes a
	// permit or polls), and the order its waiters are granted in.
	private final boolean fair;

	// The clients' command timeout, drawn from a PRNG of its own: a command a stall
	// holds back past it fails, and may still run later (SimulatedPort).
	private final long commandTimeoutNanos;

	private final FairOrder fairOrder = new FairOrder();

	// In a quarter of the runs (drawn from a PRNG of its own), multi-locks beside single
	// locks of the same names run instead of the clients below.
	private final @Nullable MultiLockRun multi;

	// Failovers and evictions, drawn from a PRNG of their own, and what they lost.
	private final RedisFaults redisFaults;

	private final LostState lostState;

	// The holds no client counts on, left by an attempt or a release without a reply.
	private final OrphanedHolds orphans;

	// Whether the writers' waits are progress-aware (LockRequest.progressAwareTimeout);
	// every grant, by its owner, when its script ran, and whether it began a hold (the
	// first grant of its token: not a re-entry, nor a client joining the hold of a
	// custom owner it shares); and the progress-aware waits that gave up in a run
	// without faults, each checked against those grants.
	private final boolean progressAware;

	private final List<Granted> grants = new ArrayList<>();

	private final Set<Long> grantedTokens = new HashSet<>();

	private int progressGiveUpsChecked;

	// Whether the clients check that a replica has each grant before counting on it, as
	// the templates with replica acknowledgements do (ReplicaWait): in a quarter of the
	// runs of single locks, drawn from a PRNG of its own.
	private final boolean replicaChecks;

	// The replica checks: run, confirmed, refused (too few replicas, the hold gone, or
	// its lease over), failed (the count got no reply), ended at the call's bound,
	// cancelled.
	private final int[] replicaCounts = new int[6];

	// The holds a replica check confirmed, by hold id: until when the lease it confirmed
	// lasts at least, which no failover may take before.
	private final Map<String, Long> replicated = new java.util.HashMap<>();

	// Whether the replica acknowledges a replica check's WAIT in time.
	private final SimulationRandom replicaDraws;

	private record Granted(String holder, String owner, boolean writer, boolean newHold, long ranNanos) {
	}

	// Once faults stopped (recover): when, and how long what they left in Redis may delay
	// a waiter (-1 before); and how many acquisitions were held to the bound then.
	private boolean recovery = true;

	private long quietFromNanos = -1;

	private long leftoverNanos;

	// The requests in the line when faults stopped: their waiters are gone.
	private final Set<String> requestsGone = new HashSet<>();

	private int recoveredWaits;

	// Acquisitions that failed as a self-deadlock after a fault, and the first of them.
	private int selfDeadlocksAfterFaults;

	private @Nullable String firstSelfDeadlock;

	/**
	 * @param seed the seed of every choice
	 * @param scripts script texts to use instead of the engine's, by name (planted bugs)
	 */
	LockSimulation(long seed, Map<String, String> scripts) {
		this(seed, scripts, ClientBug.NONE);
	}

	/**
	 * @param seed the seed of every choice
	 * @param scripts script texts to use instead of the engine's, by name (planted bugs)
	 * @param clientBug a bug planted into the clients, or {@link ClientBug#NONE}
	 */
	LockSimulation(long seed, Map<String, String> scripts, ClientBug clientBug) {
		this(seed, scripts, clientBug, EnumSet.allOf(Fault.class));
	}

	/**
	 * @param seed the seed of every choice
	 * @param scripts script texts to use instead of the engine's, by name (planted bugs)
	 * @param clientBug a bug planted into the clients, or {@link ClientBug#NONE}
	 * @param faults the faults and hold operations this run may draw; the others are
	 * still drawn, so that the rest of the run stays as close as it can, and not done
	 */
	LockSimulation(long seed, Map<String, String> scripts, ClientBug clientBug, Set<Fault> faults) {
		this.seed = seed;
		this.ids = SimulatedIds.of(seed);
		this.clientBug = clientBug;
		this.faults = faults.isEmpty() ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(faults);
		this.random = new SimulationRandom(seed);
		this.sharedOwners = this.random.nextInt(3) == 0;
		// In half of the runs thread owners take their locks reentrant, as the engine's
		// defaults do: drawn from a PRNG of its own, so that the other runs are the runs
		// they were.
		this.threadsReenter = new SimulationRandom(seed ^ REENTRANT_SEED).nextInt(2) == 0
				&& this.faults.contains(Fault.REENTRANT) && !this.sharedOwners;
		// Drawn apart from the run's other choices, so that a run where all clients write
		// is the run it was before readers came.
		SimulationRandom mix = new SimulationRandom(~seed);
		int readerPair = (mix.nextInt(2) == 0) ? mix.nextInt(2) : -1;
		// In a third of the runs every client takes one of 1 to 3 permits instead.
		int permits = (mix.nextInt(3) == 0) ? 1 + mix.nextInt(3) : 0;
		// In a quarter of the runs every client takes the fair lock instead: drawn from a
		// PRNG of its own, so that the other runs are the runs they were.
		this.fair = new SimulationRandom(seed ^ 0x66616972L).nextInt(4) == 0;
		// Only where replies are lost: a run without CUT is the run it was.
		this.commandTimeoutNanos = this.faults.contains(Fault.CUT) ? LostReplies.commandTimeoutNanos(seed) : -1;
		this.permits = this.fair ? 0 : permits;
		this.readerPair = (this.permits > 0 || this.fair) ? -1 : readerPair;
		this.minimumHolds = new SimulationRandom(seed ^ 0x6b656570L);
		this.tries = new SimulationRandom(seed ^ 0x74727973L);
		this.sharedKeeps = new SharedKeeps(seed, this.faults.contains(Fault.READ_KEEP),
				this.faults.contains(Fault.PERMIT_KEEP));
		this.cancellations = new Cancellations(seed);
		this.lostReplies = new LostReplies(seed, this.faults.contains(Fault.CUT), this.faults.contains(Fault.LATE));
		this.subscriptionGaps = new SubscriptionGaps(seed, this.faults.contains(Fault.SUBSCRIPTION), 4);
		// In a quarter of the runs of locks the clients poll: drawn from a PRNG of its
		// own, so that the other runs are the runs they were.
		boolean polls = new SimulationRandom(seed ^ 0x706f6c6cL).nextInt(4) == 0 && this.permits == 0 && !this.fair;
		// In a quarter of the other runs of locks, read locks and fair locks the clients
		// wait for keyspace events: drawn from a PRNG of its own, so that the other runs
		// are the runs they were.
		this.keyspace = new SimulationRandom(seed ^ KeyspaceWaits.SEED);
		boolean keyspaceEvents = KeyspaceWaits.draws(this.keyspace) && this.permits == 0 && !polls;
		this.waitStrategy = polls ? WaitStrategy.POLLING
				: keyspaceEvents ? WaitStrategy.KEYSPACE_EVENTS : WaitStrategy.PUBSUB;
		// In a third of the runs clients share a JVM, and so a local line: drawn from a
		// PRNG of its own, so that the other runs are the runs they were. Half of those
		// put two clients in each of two JVMs; the other half (drawn from a PRNG of its
		// own, so that the runs of two to a JVM are the runs they were) three in one and
		// one in the other, or all four in one. A quarter of the others (again a PRNG
		// of its own) put two in one JVM and the other two in one each: three processes
		// in line, one with a local line.
		boolean sharesJvms = new SimulationRandom(seed ^ 0x6a766d73L).nextInt(3) == 0;
		this.layout = sharesJvms ? JvmLayout.draw(new SimulationRandom(seed ^ 0x6c61796fL)) : JvmLayout.drawApart(seed);
		this.redis = new RedisModel(this.clock);
		this.redis.keyspaceEvents(keyspaceEvents);
		scripts.forEach(this.redis::replaceScript);
		this.multi = MultiLockRun.draws(seed) ? new MultiLockRun(seed, scripts, clientBug, this.faults) : null;
		this.replicaDraws = new SimulationRandom(seed ^ 0x7265706cL);
		this.replicaChecks = this.replicaDraws.nextInt(4) == 0 && this.faults.contains(Fault.REPLICAS)
				&& this.multi == null;
		// In half of the runs of the plain lock where clients share JVMs, and an eighth
		// of the others, the writers' waits are progress-aware: drawn from a PRNG of its
		// own, so that the other runs are the runs they were.
		SimulationRandom progress = new SimulationRandom(seed ^ PROGRESS_SEED);
		boolean progressDrawn = progress.nextInt((this.layout != JvmLayout.ONE_EACH) ? 2 : 8) == 0;
		this.progressAware = progressDrawn && this.permits == 0 && !this.fair && !polls && this.multi == null;
		this.spec = resolve(LockMode.EXCLUSIVE, this.waitStrategy, reentrant(), 0, 0, this.fair, LEASE_MS,
				this.progressAware);
		this.readSpec = resolve(LockMode.READ, this.waitStrategy, reentrant(), 0, 0, false);
		this.permitSpec = resolve(LockMode.EXCLUSIVE, this.waitStrategy, this.sharedOwners, Math.max(1, this.permits),
				0, false);
		this.checker = new HoldChecker(this.permits);
		this.handOffOrder = new HandOffOrder(this.redis, this.checker::violated);
		this.redisFaults = new RedisFaults(seed, this.faults.contains(Fault.FAILOVER),
				this.faults.contains(Fault.EVICT));
		this.lostState = new LostState(this.redis, this.spec.lockKey(), LockKeys.permits(this.permitSpec.lockKey()));
		this.orphans = new OrphanedHolds(this.lostState, this::countsOn, this.checker::violated);
	}

	/**
	 * Return whether a client counts on a hold: a handle of it not released yet, or the
	 * acquisition or re-entry under way that asks for it.
	 */
	private boolean countsOn(String name, String hold) {
		for (Client client : this.clients.values()) {
			if (client.name.equals(name)) {
				return (hold.equals(client.acquiringHold) && client.run != null && !client.failing)
						|| hold.equals(client.reentryHold) || client.holds.stream()
							.anyMatch((held) -> held.grant.hold().equals(hold) && !held.hold().isReleased());
			}
		}
		return false;
	}

	/**
	 * A writer's progress-aware wait gave up: in a run without faults, no writer's hold
	 * of another owner may have begun within its last wait time, but for the slack of a
	 * message and a round trip at either end ({@link #PROGRESS_SLACK_NANOS}): a grant
	 * after the start of that window, which the waiter learnt of before giving up, would
	 * have restarted its wait time past now (from a reply, or a reservation heard shortly
	 * before the grant, or its line's mark), and one just before giving up may not have
	 * reached it yet. Readers' grants don't count: a reader joining readers, or a lock
	 * kept for a reader's minimum hold, hands the lock to nobody new in the writer's eyes
	 * (a writer blocked by readers is told no holder's token), and the first version of
	 * this check, which counted them, failed on such a grant only (seed 1035: c3 read
	 * while its own reader's stand-in was kept, the writer c1 blocked by readers since
	 * before). Nor do grants that begin no hold: a client joining the hold of a custom
	 * owner it shares with the holder takes its token, and the lock stays with one holder
	 * (seed 33222, with random ids: c0 joined c1's hold 383 ms before c3 gave up, 17 ms
	 * after that hold began).
	 */
	private void checkGaveUpWithoutProgress(Client client) {
		if (!this.progressAware || client.reader || client.permit || !calm()) {
			return;
		}
		this.progressGiveUpsChecked++;
		long now = this.clock.nanos();
		long windowStart = now - PROGRESS_WAIT_MS * MS + PROGRESS_SLACK_NANOS;
		long windowEnd = now - PROGRESS_SLACK_NANOS;
		for (Granted granted : this.grants) {
			if (granted.writer() && granted.newHold() && !granted.owner().equals(client.owner)
					&& granted.ranNanos() - windowStart > 0 && windowEnd - granted.ranNanos() >= 0) {
				this.checker.violated(String.format(
						"%s's progress-aware wait gave up at %.3f ms, %.3f ms after %s (of another owner) was "
								+ "granted, within its wait time of %d ms",
						client.name, (now - 1_000_000 * MS) / 1e6, (now - granted.ranNanos()) / 1e6, granted.holder(),
						PROGRESS_WAIT_MS));
				return;
			}
		}
	}

	/**
	 * Return what the runs without faults draw: the callers' acts (minimum holds, cancels
	 * and tries).
	 */
	static Set<Fault> calmActs() {
		return EnumSet.copyOf(CALM);
	}

	/**
	 * Return whether this run has no faults: only minimum holds, cancels and tries, the
	 * callers' acts, as the runs held to the bound.
	 */
	private boolean calm() {
		return CALM.containsAll(this.faults);
	}

	/**
	 * Return whether the run draws this fault or hold operation now: once faults stopped
	 * ({@link #recover}), only the callers' acts of a run without faults.
	 */
	private boolean drawing(Fault fault) {
		return this.faults.contains(fault) && (this.quietFromNanos < 0 || CALM.contains(fault));
	}

	/**
	 * Return whether the writers' waits are progress-aware, and how many of those that
	 * gave up in a run without faults were checked against the grants before.
	 */
	boolean progressAware() {
		return this.progressAware;
	}

	int progressGiveUpsChecked() {
		return this.progressGiveUpsChecked;
	}

	/**
	 * Resolve the lock as the engine does: a 1 s lease, a 3 s wait ({@link #WAIT_MS}),
	 * the given wait strategy (polling every {@link LockDefaults#pollInterval()} of the
	 * standard defaults), reentrant for shared custom owners; a semaphore if
	 * {@code permits} is above 0; a minimum hold if {@code holdAtLeastMillis} is above 0;
	 * fair if asked.
	 */
	private static LockSpec resolve(LockMode mode, WaitStrategy strategy, boolean reentrant, int permits,
			long holdAtLeastMillis, boolean fair) {
		return resolve(mode, strategy, reentrant, permits, holdAtLeastMillis, fair, LEASE_MS, false);
	}

	/**
	 * Resolve the lock as
	 * {@link #resolve(LockMode, WaitStrategy, boolean, int, long, boolean)} does, with
	 * another lease, and a progress-aware wait if asked (the standard defaults' is not),
	 * of {@link #PROGRESS_WAIT_MS}.
	 */
	private static LockSpec resolve(LockMode mode, WaitStrategy strategy, boolean reentrant, int permits,
			long holdAtLeastMillis, boolean fair, long leaseMillis, boolean progressAware) {
		RedisServerFeatures server = new RedisServerFeatures(null, false, false);
		if (strategy == WaitStrategy.KEYSPACE_EVENTS) {
			// The model publishes them (Kgx): as the engine's check would find.
			server.keyspaceEventsConfirmed();
		}
		LockRequestResolver resolver = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("sim", 0), false,
				true, server, 5_000);
		LockRequest.Builder request = LockRequest.builder("orders")
			.key("1")
			.lease(Duration.ofMillis(leaseMillis))
			.waitTime(Duration.ofMillis(progressAware ? PROGRESS_WAIT_MS : WAIT_MS))
			.waitStrategy(strategy)
			.reentrant(reentrant)
			.mode(mode)
			.fair(fair);
		if (progressAware) {
			request.progressAwareTimeout(true);
		}
		if (permits > 0) {
			request.permits(permits);
		}
		if (holdAtLeastMillis > 0) {
			request.holdAtLeast(Duration.ofMillis(holdAtLeastMillis));
		}
		return resolver.resolve(request.build());
	}

	/**
	 * Return whether the clients' locks are reentrant: for shared custom owners, and for
	 * thread owners where the run draws it ({@link Fault#REENTRANT}).
	 */
	private boolean reentrant() {
		return this.sharedOwners || this.threadsReenter;
	}

	/**
	 * Return the spec a writer's acquisition takes the lock with: a quarter of them hold
	 * it at least a minimum hold drawn around the protocol's constants (a third of the
	 * shortest lease, the shortest lease, the lock's own lease: just below, at, just
	 * above, never past the lease, which the engine refuses).
	 */
	private LockSpec writerSpec() {
		long[] minimums = { OTHER_LEASES_MS[0] / 3, OTHER_LEASES_MS[0], LEASE_MS };
		boolean keeps = this.minimumHolds.nextInt(4) == 0;
		long minimum = minimums[this.minimumHolds.nextInt(minimums.length)] - 1 + this.minimumHolds.nextInt(3);
		if (!keeps || !this.faults.contains(Fault.KEEP)) {
			return this.spec;
		}
		long holdAtLeast = Math.min(minimum, LEASE_MS);
		return keptSpec(holdAtLeast, LEASE_MS);
	}

	/**
	 * Return the spec of a writer's acquisition: an eighth of them, where the run draws
	 * tries, are a try of {@link #writerSpec()}'s (wait 0: one attempt that files no
	 * request and leaves no queued mark).
	 */
	private LockSpec writerOrTrySpec() {
		LockSpec spec = writerSpec();
		boolean tries = this.tries.nextInt(8) == 0;
		return (tries && drawing(Fault.TRY)) ? spec.withWaitNanos(0) : spec;
	}

	private LockSpec keptSpec(long holdAtLeast, long leaseMillis) {
		return this.keptSpecs.computeIfAbsent(holdAtLeast + 1_000_000 * leaseMillis,
				(key) -> resolve(LockMode.EXCLUSIVE, this.waitStrategy, reentrant(), 0, holdAtLeast, this.fair,
						leaseMillis, this.progressAware));
	}

	/**
	 * Return the spec a reader's or a permit's acquisition takes: a quarter of them hold
	 * at least a minimum hold ({@link SharedKeeps}).
	 */
	private LockSpec sharedSpec(LockSpec plain) {
		LockMode mode = plain.kind().waitsAsReader() ? LockMode.READ : LockMode.EXCLUSIVE;
		return this.sharedKeeps.spec(plain,
				(millis) -> resolve(mode, this.waitStrategy, reentrant(), this.permits, millis, false));
	}

	/**
	 * A grant whose acquire script ran at {@code ranNanos}: no lock kept for a minimum
	 * hold may be granted to another hold before that minimum hold ends, nor a writer's
	 * while a reader is kept for one.
	 */
	private void checkKept(String holder, long token, long ranNanos) {
		boolean writer = this.clients.values()
			.stream()
			.anyMatch((client) -> client.name.equals(holder) && !client.reader && !client.permit);
		String reading = writer ? this.sharedKeeps.writerGranted(holder, token, ranNanos) : null;
		if (reading != null) {
			this.checker.violated(reading);
			return;
		}
		for (KeptLock kept : this.kept) {
			String found = kept.grantViolation(holder, token, ranNanos);
			if (found != null) {
				this.checker.violated(found);
				return;
			}
		}
	}

	/**
	 * Return when Redis ends the keep a release of a plain lock just made, from the
	 * lock's TTL, or -1 if the lock is not kept (another kind, or no kept state).
	 */
	private long keptInRedisUntil(LockSpec released, long nowNanos) {
		Object reserved = this.redis.inspect("HGET", this.spec.lockKey(), "reserved");
		if (!released.lockKey().equals(this.spec.lockKey())
				|| !"".equals(this.redis.inspect("HGET", this.spec.lockKey(), "owner"))
				|| (reserved != null && !"".equals(reserved))) {
			return -1;
		}
		long ttl = (Long) this.redis.inspect("PTTL", this.spec.lockKey());
		return (ttl > 0) ? nowNanos + ttl * MS : -1;
	}

	/**
	 * Return how long, between two times, the lock was kept for a minimum hold: from a
	 * release that kept it until the later of the end the engine promises and the end the
	 * release set in Redis.
	 */
	private long keptWithin(long fromNanos, long toNanos) {
		long total = 0;
		long covered = fromNanos;
		for (KeptLock kept : this.keptHistory) {
			if (kept.ranNanos < 0) {
				continue;
			}
			long start = Math.max(covered, kept.ranNanos);
			long end = Math.min(toNanos, keptEnd(kept));
			if (end - start > 0) {
				total += end - start;
				covered = end;
			}
		}
		return total;
	}

	/**
	 * Return when waiters can learn that a kept lock's keep ended. A pub/sub waiter
	 * learned its end from the attempt the release woke it for. A keyspace waiter was not
	 * woken (the release's message only informs it, and the keep's {@code expire} event
	 * does not wake): it learns when the key's {@code expired} is published, which Redis
	 * does when it finds the key expired, by a look-up or at its next active expiry cycle
	 * (so at most a cycle, 100 ms, after the end).
	 */
	private long keptEnd(KeptLock kept) {
		long last = kept.waitedUntilNanos();
		if (!keyspaceEvents() || last == Long.MAX_VALUE) {
			return last;
		}
		long latest = last + KeyspaceWaits.CYCLE_NANOS + REDIS_MS_SLACK;
		int at = java.util.Collections.binarySearch(this.keysGoneNanos, last - REDIS_MS_SLACK);
		int first = (at >= 0) ? at : -at - 1;
		return (first < this.keysGoneNanos.size()) ? Math.min(this.keysGoneNanos.get(first), latest) : latest;
	}

	static String at(long nanos) {
		return String.format("%.3f", (nanos - 1_000_000 * MS) / 1e6);
	}

	/**
	 * Every lock kept for a minimum hold, once its release was read, stays in Redis until
	 * the minimum hold ends, owned by nobody (or still by its own owner, if another
	 * client of that owner holds it).
	 */
	private @Nullable String keptViolation(long now) {
		this.kept.removeIf((kept) -> kept.lastNanos() - now < 0);
		for (KeptLock kept : this.kept) {
			if (kept.lost) {
				continue;
			}
			String found = kept.liveViolation(this.redis, this.spec.lockKey(), now);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/**
	 * Return the grant as if its request asked for the watchdog, which renews it once the
	 * registry has it.
	 */
	static Grant renewed(Grant grant) {
		LockSpec spec = grant.spec();
		LockSpec renewed = new LockSpec(spec.name(), spec.lockKey(), spec.releaseChannel(), spec.kind(), spec.permits(),
				spec.queueId(), spec.leaseMillis(), spec.waitNanos(), spec.progressAware(), true,
				spec.holdAtLeastMillis(), spec.fairWaiterTimeoutMillis(), spec.waitMode(), spec.reentrant(),
				spec.origin());
		return new Grant(renewed, grant.owner(), grant.token(), grant.hold(), grant.sentNanos(), grant.waited(),
				grant.waitedFor(), grant.attempts(), grant.shownToken(), grant.cohort());
	}

	/**
	 * Return the spec of a re-entry with another lease, and the outer hold's minimum
	 * hold, which the nested hold counts from its own acquisition.
	 */
	static LockSpec reentrant(LockSpec outer, long leaseMillis) {
		return new LockSpec(outer.name(), outer.lockKey(), outer.releaseChannel(), outer.kind(), outer.permits(),
				outer.queueId(), leaseMillis, 0, outer.progressAware(), outer.autoRenew(), outer.holdAtLeastMillis(),
				outer.fairWaiterTimeoutMillis(), outer.waitMode(), true, null);
	}

	/**
	 * Return the driver's local lines of client {@code i}: its own, or its JVM's, which
	 * the first client of the JVM creates, over a port of the JVM's.
	 */
	private LocalLines driverLines(int i) {
		int jvm = this.layout.jvm(i);
		String name = (jvm >= 0) ? "jvm" + jvm : "c" + i;
		return this.driverLines.computeIfAbsent(name, (key) -> EngineParts.lines(new SimulatedPort(key, this.world)));
	}

	/**
	 * Return the engine's hold registry of client {@code i}'s JVM, as a template has one:
	 * its own, or its JVM's, whose watchdog renews the holds of the JVM's clients in one
	 * batch when they are due together, over a port of the JVM's, and whose counts say
	 * whether a thread owner's next acquisition holds the lock.
	 */
	private HoldRegistry registry(int i) {
		int jvm = this.layout.jvm(i);
		String name = (jvm >= 0) ? "jvm" + jvm : "c" + i;
		return this.registries.computeIfAbsent(name, (key) -> {
			LockPort port = new SimulatedPort(key + " watchdog", this.world);
			return new HoldRegistry(
					(this.clientBug == ClientBug.FAILED_RENEWAL_CONFIRMS) ? failedRenewalsConfirm(port) : port,
					() -> false, true, new LockListener() {
					}, driverLines(i), (this.clientBug == ClientBug.DEADLINE_FROM_REPLY)
							? PlantedHoldBugs::countingLeasesFromReplies : LockHold::new);
		});
	}

	/**
	 * The planted bug {@link ClientBug#FAILED_RENEWAL_CONFIRMS}: a port on which a
	 * renewal that got no reply answers as confirmed ({@code 1} for each hold).
	 */
	private static LockPort failedRenewalsConfirm(LockPort port) {
		return SimulatedPort.running(port, (name, operation, call, reply) -> {
			if (!operation.equals("renew")) {
				port.run(name, operation, call, reply);
				return;
			}
			// renew.lua answers for each hold (four arguments each), a reader's or a
			// permit's extension for its one hold.
			Object confirmed = call.script().name().equals("renew.lua")
					? java.util.Collections.nCopies(call.argv().size() / 4, 1L) : 1L;
			port.run(name, operation, call, Completion.of(reply::granted, (error) -> reply.granted(confirmed)));
		});
	}

	/**
	 * Run the clients until each has made its acquisitions, or the step budget is spent;
	 * then, in a run with faults, stop them and hold the clients' next acquisitions to
	 * the bound ({@link #recover}).
	 * @return what the checker found, or {@code null} if nothing
	 */
	@Nullable String run(int clients, int acquisitionsEach) {
		if (this.multi != null) {
			return this.multi.run(clients, acquisitionsEach);
		}
		for (int i = 0; i < clients; i++) {
			// In a third of the runs, two custom owners of two clients each: a client's
			// acquisition joins the other's hold as a re-entry. With three clients in one
			// JVM, c2 and c3 are one owner in two JVMs.
			String owner = this.sharedOwners ? "custom:shared-" + (i / 2) : "owner-c" + i;
			// A pair of clients read, in half of the runs: the two clients of one custom
			// owner, as an owner that reads may not also write (an upgrade deadlocks).
			// With three or four clients in one JVM, readers and writers share it.
			LockSpec spec = (this.permits > 0) ? this.permitSpec
					: (i / 2 == this.readerPair) ? this.readSpec : this.spec;
			int jvm = this.layout.jvm(i);
			String lineName = ((jvm >= 0) ? "jvm" + jvm : "c" + i)
					+ ((jvm >= 0 && spec.kind().waitsAsReader()) ? "-readers" : "");
			Client client = new Client("c" + i, owner, spec, acquisitionsEach, driverLines(i), registry(i),
					lineName + "/" + spec.queueId());
			this.clients.put(i, client);
			String role = (client.reader ? " (reads)"
					: client.permit ? " (takes 1 of " + this.permits + " permits)" : this.fair ? " (fair)" : "")
					+ ((pollNanos() > 0) ? " (polls)" : "")
					+ (spec.waitMode().keyspaceEvents() ? " (keyspace events)" : "")
					+ ((this.layout != JvmLayout.ONE_EACH) ? " in " + lineName : "");
			at(this.random.between(0, 50 * MS),
					client.name + " starts" + role + (this.sharedOwners ? " as " + owner : ""), client::start);
		}
		countHoldsAhead();
		long firstStall = this.random.between(0, 2_000 * MS);
		if (this.faults.contains(Fault.STALL)) {
			at(firstStall, "redis stalls", this::stall);
		}
		if (keyspaceEvents()) {
			redisAt(KeyspaceWaits.firstCycle(this.keyspace), "redis expires keys", this::activeExpiry);
		}
		this.redisFaults.start(this.redis);
		for (RedisFaults.Planned fault : this.redisFaults.planned()) {
			redisAt(fault.atNanos(), fault.failover() ? "redis fails over" : "redis evicts a key",
					() -> redisFault(fault));
		}
		String violation = drain();
		if (violation == null) {
			violation = recover();
		}
		if (violation == null) {
			this.orphans.finish(this.clock.nanos());
			violation = this.checker.violation();
		}
		return violation;
	}

	/**
	 * Run the events until none is left, or the step budget is spent.
	 * @return what the checker found, or {@code null} if nothing
	 */
	private @Nullable String drain() {
		while (!this.events.isEmpty() && this.steps++ < 200_000) {
			Event event = this.events.poll();
			this.clock.advanceTo(Math.max(this.clock.nanos(), event.at));
			if (!this.redis.answering() && event.needsRedis) {
				// A command that reaches Redis while it is stalled runs when the stall
				// ends, in the order the commands reached it. One that a stall begun
				// meanwhile holds back again keeps its place: a command that reached
				// Redis after it must not run first, as a client's commands run in the
				// order it wrote them on its connection (seed 18170: an attempt held
				// back by two stalls ran after the withdrawal sent once it had timed
				// out, and filed its request again for nobody).
				this.events.add(new Event(this.redis.stalledUntil(), event.deferred ? event.sequence : this.sequence++,
						event.what, event.action, true, true));
				continue;
			}
			if (!event.what.isEmpty()) {
				// An event without a name is one that may do nothing (a command's
				// timeout, should it not have run yet): it notes what it does.
				this.trace.add(String.format("%9.3f ms  %s", (this.clock.nanos() - 1_000_000 * MS) / 1e6, event.what));
			}
			try {
				event.action.run();
			}
			catch (RuntimeException ex) {
				// The engine's code failed where the protocol gives it no reason to: a
				// finding too, shrunk and traced as any.
				return event.what + " failed: " + ex;
			}
			deliver();
			checkLiveHolds();
			this.orphans.check(this.clock.nanos());
			watchFreePermits();
			String violation = this.checker.violation();
			if (violation != null) {
				return violation;
			}
		}
		return this.checker.violation();
	}

	/**
	 * Once the run is over, stop every fault and let each client make
	 * {@link #RECOVERY_ACQUISITIONS} more acquisitions at once, each held to its own
	 * client's bound of a run without faults, plus what the faults left in Redis may cost
	 * until it goes: a stall still under way, the longest time to live of the lock's keys
	 * (a hold, a reservation, a kept lock, readers or a writer intent that no client
	 * counts on any more) and a claim for each request of a waiter that is gone, as the
	 * guarantees state the bound ("once faults stop"). Runs that poll, take permits, the
	 * fair lock or multi-locks, whose waits are progress-aware, or whose clients share
	 * custom owners, are not held to it here.
	 * @return what the checker found, or {@code null} if nothing
	 */
	private @Nullable String recover() {
		if (!recovers()) {
			return null;
		}
		long now = this.clock.nanos();
		this.quietFromNanos = now;
		this.lostReplies.stop();
		long stall = Math.max(0, this.redis.stalledUntil() - now);
		long ttl = 0;
		for (String key : List.of(this.spec.lockKey(), LockKeys.writerIntent(this.spec.lockKey()))) {
			ttl = Math.max(ttl, ((Number) this.redis.inspect("PTTL", key)).longValue() * MS);
		}
		String readers = LockKeys.readers(this.spec.lockKey());
		Object latest = this.redis.inspect("ZRANGE", readers, "-1", "-1", "WITHSCORES");
		if (latest instanceof List<?> reader && reader.size() == 2) {
			long end = (long) Double.parseDouble(String.valueOf(reader.get(1))) * MS;
			ttl = Math.max(ttl, end - this.clock.millis() * MS);
		}
		// A reader the faults left (a lost attempt that ran after its undo) ends
		// silently:
		// a writer told of a later reader's end, who has left since, tries again only at
		// its next retry, within half a claim of its last attempt (seed 1779).
		Object live = this.redis.inspect("ZRANGEBYSCORE", readers, "(" + this.clock.millis(), "+inf");
		if (live instanceof List<?> members
				&& members.stream().anyMatch((member) -> !String.valueOf(member).startsWith("kept|"))) {
			ttl = Math.max(ttl, TimeUnit.MILLISECONDS.toNanos(HandOffRequest.CLAIM_MILLIS) / 2);
		}
		Object requests = this.redis.inspect("ZRANGE", LockKeys.requests(this.spec.lockKey()), "0", "-1");
		if (requests instanceof List<?> members) {
			members.forEach((member) -> this.requestsGone.add(String.valueOf(member)));
		}
		this.leftoverNanos = stall + ttl;
		this.trace.add(String.format("           faults stop; what they left may cost %.3f ms, and %d requests left",
				this.leftoverNanos / 1e6, this.requestsGone.size()));
		for (Client client : this.clients.values()) {
			client.left = RECOVERY_ACQUISITIONS;
			at(this.random.between(0, 20 * MS), client.name + " starts again", client::start);
		}
		if (keyspaceEvents()) {
			// Redis's expiry cycle goes on, as it stopped once the clients were done.
			redisAt(KeyspaceWaits.CYCLE_NANOS, "redis expires keys", this::activeExpiry);
		}
		return drain();
	}

	/**
	 * Return whether this run's clients are held to the bound once faults stop.
	 */
	boolean recovers() {
		// Not custom owners shared by clients: a hold of theirs that a fault left (an
		// attempt that ran after its undo, a failover) is joined by the owner's later
		// acquisitions, each of which lengthens the lease (seed 21853, a known gap of the
		// engine: docs/guarantees.md).
		return this.recovery && this.multi == null && !calm() && this.permits == 0 && !this.fair && pollNanos() == 0
				&& !this.progressAware && !this.sharedOwners;
	}

	/**
	 * End the run once the clients have made their acquisitions, without stopping the
	 * faults for more ({@link #recover}): for a check that counts what happens in a run
	 * of a given length.
	 * @return this simulation
	 */
	LockSimulation withoutRecovery() {
		this.recovery = false;
		return this;
	}

	/**
	 * Return how many acquisitions were held to the bound once faults stopped.
	 */
	int recoveredWaits() {
		return this.recoveredWaits;
	}

	/**
	 * Every hold its holder counts on is its owner's in Redis, and lives there at least
	 * as long as the holder counts on it: a writer's as the lock hash's owner, with no
	 * live reader of another owner beside it; a reader's in the readers set, scored by
	 * its lease end, with its hold in its owner's list and no writer of another owner in
	 * the lock hash.
	 */
	private void checkLiveHolds() {
		if (!this.redis.answering()) {
			return;
		}
		long now = this.clock.nanos();
		String kept = keptViolation(now);
		if (kept == null) {
			kept = this.sharedKeeps.liveViolation(now, this::score);
		}
		if (kept != null) {
			this.checker.violated(kept);
			return;
		}
		for (Client client : this.clients.values()) {
			for (Held held : client.holds) {
				if (!held.live(now) || held.lostBy != null) {
					// A hold a fault lost: its holder learns it at its next renewal,
					// extension or release.
					continue;
				}
				String found = liveViolation(client, held, now);
				if (found != null) {
					this.checker.violated(client.name + " counts on " + held + " for another "
							+ (held.endNanos() - now) / 1e6 + " ms, but " + found);
					return;
				}
			}
		}
	}

	private @Nullable String liveViolation(Client client, Held held, long now) {
		return client.permit ? livePermitViolation(client, held, now)
				: client.reader ? liveReadHoldViolation(client, held, now) : liveHoldViolation(client, held, now);
	}

	/**
	 * Do a failover or an eviction ({@link RedisFaults}), and mark what it lost
	 * ({@link LostState}): the holds their holders count on, and will count on once an
	 * attempt's or a re-entry's reply is read, and the locks kept for a minimum hold.
	 */
	private void redisFault(RedisFaults.Planned fault) {
		if (this.clients.values().stream().allMatch((client) -> client.left <= 0 && !client.busy)) {
			return;
		}
		long now = this.clock.nanos();
		List<LostState.Target> targets = lostTargets(now);
		long[] before = this.lostState.ends(targets);
		int writesLostBefore = this.redisFaults.counts()[1];
		String what = this.redisFaults.apply(fault, this.redis, this.spec.lockKey(),
				LockKeys.permits(this.permitSpec.lockKey()), now);
		if (what == null) {
			return;
		}
		if (this.redisFaults.counts()[1] > writesLostBefore) {
			// Any grant before it may be among the writes it lost.
			this.checker.failedOverLosingWrites();
			Object restoredOwner = this.redis.inspect("HGET", this.spec.lockKey(), "owner");
			Object restoredToken = this.redis.inspect("HGET", this.spec.lockKey(), "token");
			if (restoredOwner instanceof String digest && !digest.isEmpty() && restoredToken != null) {
				this.checker.failoverRestored(digest, Long.parseLong(restoredToken.toString()));
			}
		}
		this.trace.add("           " + what);
		long[] after = this.lostState.ends(targets);
		broughtBack();
		if (this.redisFaults.counts()[1] > writesLostBefore) {
			this.broughtBackInFlight.addAll(this.lostState.foundAgainInFlight());
		}
		for (LostState.Damage damage : this.lostState.damaged(targets, before, after, what, fault.failover(), now)) {
			LostState.Target target = damage.target();
			if (target.subject() instanceof Held held) {
				Long confirmed = this.replicated.get(held.grant.hold());
				if (confirmed != null && damage.gone() && damage.failover() && now - confirmed < -REDIS_MS_SLACK) {
					this.checker.violated(String.format(
							"%s's hold token %d, which a replica had acknowledged with a "
									+ "lease to %.3f ms, was lost in a failover at %.3f ms",
							target.holder(), target.token(), (confirmed - 1_000_000 * MS) / 1e6,
							(now - 1_000_000 * MS) / 1e6));
				}
				held.lostBy = damage;
				this.checker.lost(target.holder(), target.token());
				if (damage.gone() && damage.failover()) {
					this.checker.lostInFailover(target.owner(), target.token());
				}
			}
			else if (target.subject() instanceof KeptLock kept) {
				kept.lost = true;
				this.checker.lost(target.holder(), target.token());
			}
			this.trace.add("           " + target.holder() + "'s " + target.kind().name().toLowerCase()
					+ ((target.token() != 0) ? " token " + target.token() : " hold in flight") + " "
					+ damage.describe());
		}
	}

	/**
	 * A failover may bring back what an earlier fault took (an eviction that the replica
	 * never got): a lost hold stays lost, but its scripts may find it again.
	 */
	private void broughtBack() {
		for (Client client : this.clients.values()) {
			for (Held held : client.holds) {
				LostState.Damage damage = held.lostBy;
				if (damage != null && damage.saysLost() && !this.lostState.gone(damage.target())) {
					held.lostBy = damage.foundAgain();
				}
			}
		}
	}

	private List<LostState.Target> lostTargets(long now) {
		List<LostState.Target> targets = new ArrayList<>();
		for (Client client : this.clients.values()) {
			LostState.Kind kind = client.permit ? LostState.Kind.PERMIT
					: client.reader ? LostState.Kind.READER : LostState.Kind.WRITER;
			for (Held held : client.holds) {
				if (held.live(now) && held.lostBy == null) {
					targets.add(new LostState.Target(kind, client.name, client.owner, held.grant.hold(),
							held.grant.token(), false, held));
				}
			}
			String acquiring = client.acquiringHold;
			if (acquiring != null) {
				targets.add(new LostState.Target(kind, client.name, client.owner, acquiring, 0, true, null));
			}
			if (client.reentryHold != null) {
				targets.add(new LostState.Target(kind, client.name, client.owner, client.reentryHold, 0, true, null));
			}
		}
		for (KeptLock kept : this.kept) {
			// A keep whose release has not run (or never reaches Redis) is the hold
			// itself, which a fault may lose as well (seed 5979).
			if (!kept.lost) {
				targets.add(new LostState.Target(LostState.Kind.KEPT_LOCK, kept.holder, kept.owner, kept.hold,
						kept.token, false, kept));
			}
		}
		// So is a reader's or a permit's (seed 44391: a permit's release that never
		// reached Redis, whose grant a failover lost).
		this.sharedKeeps.forEachKept((kept, hold, reader) -> {
			if (!kept.lost) {
				targets.add(new LostState.Target(reader ? LostState.Kind.KEPT_READ : LostState.Kind.KEPT_PERMIT,
						kept.holder, kept.owner, hold, kept.token, false, kept));
			}
		});
		return targets;
	}

	/**
	 * Return whether a hold its holder starts to count on now was lost by a fault while
	 * its reply was in flight (its state in Redis went or was cut short, and Redis still
	 * disagrees with it now); mark it so.
	 */
	private boolean lostInFlight(Client client, Held held, long now) {
		LostState.Damage damage = this.lostState.inFlight(held.grant.hold());
		if (damage == null) {
			return false;
		}
		if (!this.lostState.gone(damage.target()) && liveViolation(client, held, now) == null) {
			if (damage.gone() && this.broughtBackInFlight.contains(held.grant.hold())) {
				// Seed 8904: an eviction took the hold in flight, another client took and
				// released the lock, and a failover that lost those writes brought the
				// hold back. Its token went to this owner before the failover lost a
				// larger one: an owner's earlier hold brought back.
				this.checker.broughtBackInFlight(client.owner, held.grant.token());
			}
			return false;
		}
		this.lostState.countedOn(damage);
		held.lostBy = damage;
		if (damage.gone() && damage.failover()) {
			this.checker.lostInFailover(client.owner, held.grant.token());
		}
		this.trace.add("           " + client.name + " counts on " + held + ", " + damage.describe());
		return true;
	}

	/**
	 * Return whether the hold's owner holds the lock again with the hold's token (a
	 * custom owner's other client took the hold over, or joined it): a release of a hold
	 * whose field is gone then reports the holds left, as a release run twice does (seed
	 * 6521). Or the lock was kept for a minimum hold with the hold's token before the
	 * release first ran (seed 24047: a failover lost the hold's grant and brought back
	 * the keep of an earlier hold of the owner, which had the same token): the release
	 * scripts take that keep for their own earlier run, and say 0. A keep the release
	 * wrote itself is no excuse
	 * (FaultPlantedBugTests.findsAReleaseThatKeepsItsOwnLostHold).
	 */
	private boolean heldAgain(Client client, Held held) {
		Object fields = this.redis.inspect("HMGET", this.spec.lockKey(), "owner", "token");
		if (!(fields instanceof List<?> list)
				|| !String.valueOf(held.grant.token()).equals(String.valueOf(list.get(1)))) {
			return false;
		}
		if (LockOwners.digest(client.owner).equals(list.get(0))) {
			return true;
		}
		return "".equals(list.get(0)) && Boolean.TRUE.equals(this.keptBeforeRelease.get(held.grant.hold()));
	}

	/**
	 * Return whether the lock is kept for a minimum hold, with nobody as its owner, with
	 * this token.
	 */
	private boolean keptWith(String token) {
		Object fields = this.redis.inspect("HMGET", this.spec.lockKey(), "owner", "token");
		return fields instanceof List<?> list && "".equals(list.get(0)) && token.equals(String.valueOf(list.get(1)));
	}

	/**
	 * A reply to a renewal, an extension or a release of a hold a fault lost, sent at
	 * {@code sentNanos}: sent after the fault, it must say the hold is lost, if the
	 * script's reply is defined to (not a reader's release, which counts its owner's
	 * holds). A hold the fault only cut short stays marked until it ends: a renewal sent
	 * after the fault may make it whole again, but the reply of one sent before may still
	 * come, and make its holder count on what the fault lost.
	 */
	private void lostReply(Client client, Held held, long sentNanos, long result, boolean release) {
		LostState.Damage damage = held.lostBy;
		if (damage == null || sentNanos - damage.atNanos() <= 0) {
			return;
		}
		if (damage.gone() && damage.saysLost() && !(release && client.reader)
				&& !(release && heldAgain(client, held))) {
			this.lostState.replyChecked();
			if (result >= 0) {
				this.checker.violated(client.name + "'s " + (release ? "release" : "renewal or extension") + " of "
						+ held + ", sent at " + at(sentNanos) + " ms, said it holds (" + result + "), but it was "
						+ damage.describe());
			}
		}
	}

	/**
	 * Return whether an acquisition failed as a self-deadlock (its owner found holding
	 * the lock, and the request not reentrant) after a fault lost writes: an eviction of
	 * the reader holds hash leaves an owner's score without its holds, a failover may
	 * bring back a released read hold, or a nested hold whose release it lost (a fair
	 * lock takes no hold of its own owner over). Counted, with the first, as a finding
	 * (docs/design/simulation.md); the acquisition ends without the lock, as the caller's
	 * would with the exception. Never before a fault: there it fails the run.
	 */
	private boolean selfDeadlockAfterFault(Client client, RuntimeException error) {
		long now = this.clock.nanos();
		if (!(error instanceof io.github.distributedlock.LockSelfDeadlockException)
				|| now - this.redisFaults.firstNanos() < 0) {
			return false;
		}
		this.selfDeadlocksAfterFaults++;
		if (this.firstSelfDeadlock == null) {
			this.firstSelfDeadlock = "seed " + this.seed + ": " + client.name + (client.reader ? " (reads)" : "")
					+ " failed as a self-deadlock at " + at(now) + " ms";
		}
		this.trace.add("           " + client.name + " fails: " + error.getMessage());
		return true;
	}

	private @Nullable Long score(boolean readers, String member) {
		String key = readers ? LockKeys.readers(this.readSpec.lockKey()) : LockKeys.permits(this.permitSpec.lockKey());
		Object score = this.redis.inspect("ZSCORE", key, member);
		return (score != null) ? Long.valueOf(score.toString()) : null;
	}

	private @Nullable String liveHoldViolation(Client client, Held held, long now) {
		return HoldsInRedis.writerHoldViolation(this.redis, this.spec.lockKey(), client.owner, held.grant.hold(),
				held.endNanos());
	}

	private @Nullable String liveReadHoldViolation(Client client, Held held, long now) {
		return HoldsInRedis.readerViolation(this.redis, this.readSpec.lockKey(), client.owner, held.grant.hold(),
				held.endNanos());
	}

	/**
	 * Measure how long each acquiring client waits while Redis has a permit free: a
	 * permit's release wakes every waiter, so none should wait long beside a free permit.
	 */
	private void watchFreePermits() {
		if (this.permits == 0 || !this.redis.answering()) {
			return;
		}
		long now = this.clock.nanos();
		Object live = this.redis.inspect("ZRANGEBYSCORE", LockKeys.permits(this.permitSpec.lockKey()),
				"(" + this.clock.millis(), "+inf");
		boolean free = !(live instanceof List<?> taken) || taken.size() < this.permits;
		for (Client client : this.clients.values()) {
			if (client.busy && !client.cancelled && free) {
				if (client.freePermitSince < 0) {
					client.freePermitSince = now;
				}
			}
			else if (client.freePermitSince >= 0) {
				long waited = now - client.freePermitSince;
				client.freePermitSince = -1;
				if (waited > this.longestFreePermitWaitNanos) {
					this.longestFreePermitWaitNanos = waited;
					this.longestFreePermitWait = String.format(
							"%s waited %.3f ms beside a free permit, from %.3f ms to %.3f ms", client.name,
							waited / 1e6, (now - waited - 1_000_000 * MS) / 1e6, (now - 1_000_000 * MS) / 1e6);
				}
			}
		}
	}

	private @Nullable String livePermitViolation(Client client, Held held, long now) {
		String member = LockOwners.digest(client.owner) + "|" + held.grant.hold();
		Object score = this.redis.inspect("ZSCORE", LockKeys.permits(this.permitSpec.lockKey()), member);
		if (score == null) {
			return "its permit is not in Redis";
		}
		long endMillis = Long.parseLong(score.toString());
		if (endMillis * MS + REDIS_MS_SLACK - held.endNanos() < 0) {
			return "Redis keeps its permit " + (endMillis * MS - now) / 1e6 + " ms";
		}
		return null;
	}

	/**
	 * A message reached a subscription of the driver's local lines: it hears it, unless a
	 * waiter takes it as its grant (the planted {@link ClientBug#MESSAGE_AS_GRANT}), or
	 * it names the next fair waiter in keyspace mode (the planted
	 * {@link ClientBug#KEYSPACE_IGNORES_FAIR_NAME}: nobody acts on it).
	 */
	private void heardByDriver(java.util.function.Consumer<String> route, String message) {
		ReleaseMessage parsed = ReleaseMessage.parse(message.getBytes(java.nio.charset.StandardCharsets.UTF_8));
		if (this.clientBug == ClientBug.KEYSPACE_IGNORES_FAIR_NAME && keyspaceEvents()
				&& parsed instanceof ReleaseMessage.NextInLine) {
			return;
		}
		for (Client client : this.clients.values()) {
			if (client.takenAsGrant(parsed)) {
				return;
			}
		}
		route.accept(message);
	}

	/**
	 * Redis's active expiry cycle, ten times a second: the keys whose time passed
	 * unnoticed expire now, each with its {@code expired} event. It stops once every
	 * client is done, as the stalls do.
	 */
	private void activeExpiry() {
		int expired = this.redis.expireDue();
		if (expired > 0) {
			this.trace.add("           " + expired + " keys expired");
		}
		if (this.clients.values().stream().allMatch((client) -> client.left <= 0 && !client.busy)) {
			return;
		}
		redisAt(KeyspaceWaits.CYCLE_NANOS, "redis expires keys", this::activeExpiry);
	}

	private void stall() {
		if (this.clients.values().stream().allMatch((client) -> client.left <= 0 && !client.busy)) {
			return;
		}
		long stall = aroundConstant();
		this.redis.stall(Duration.ofNanos(stall));
		this.orphans.stalled(this.clock.nanos(), this.redis.stalledUntil());
		this.trace.add("           redis stalled for " + stall / 1e6 + " ms");
		at(this.random.between(0, 3_000 * MS), "redis stalls", this::stall);
	}

	/**
	 * Deliver what was published: late, twice, replayed later, or never.
	 */
	private void deliver() {
		for (PubSub.Delivery delivery : this.redis.pubSub().drain()) {
			noteKeyGone(delivery);
			java.util.function.Consumer<String> route = this.routes.get(delivery.subscriber().id());
			if (route == null) {
				continue;
			}
			java.util.function.Consumer<String> hear = (message) -> {
				if (message.startsWith("reserved:")) {
					this.heardReservations.add(message.substring("reserved:".length()));
				}
				heardByDriver(route, message);
			};
			String what = delivery.subscriber().name() + " hears " + delivery.message();
			int fault = drawing(Fault.MESSAGE) ? this.random.nextInt(40) : 39;
			if (fault == 0) {
				this.trace.add("           dropped: " + what);
				this.droppedReservationMessages += delivery.message().startsWith("reserved:") ? 1 : 0;
				continue;
			}
			long delay = (fault < 4) ? aroundConstant() : network();
			at(delay, what, () -> hear.accept(delivery.message()));
			if (fault == 4 || fault == 5) {
				at(delay + ((fault == 4) ? network() : aroundConstant()), what + " (again)",
						() -> hear.accept(delivery.message()));
			}
		}
	}

	private void noteKeyGone(PubSub.Delivery delivery) {
		List<String> channels = this.spec.waitMode().channels();
		boolean gone = delivery.message().equals("del") || delivery.message().equals("expired");
		if (keyspaceEvents() && gone && channels.subList(0, 2).contains(delivery.channel())) {
			long now = this.clock.nanos();
			if (this.keysGoneNanos.isEmpty() || this.keysGoneNanos.get(this.keysGoneNanos.size() - 1) != now) {
				this.keysGoneNanos.add(now);
			}
		}
	}

	/**
	 * How long a reply takes to be acted on: a network delay, or a client paused around a
	 * constant.
	 */
	private long replyDelay() {
		return (this.random.nextInt(10) == 0 && drawing(Fault.PAUSE)) ? aroundConstant() : network();
	}

	/**
	 * Return how the clients were spread over JVMs.
	 */
	JvmLayout layout() {
		return this.layout;
	}

	long seed() {
		return this.seed;
	}

	int holds() {
		return (this.multi != null) ? this.multi.holds() : this.checker.holds();
	}

	/**
	 * Return the run of multi-locks this seed ran instead of its clients, if it did.
	 */
	@Nullable MultiLockRun multi() {
		return this.multi;
	}

	/**
	 * Return whether two of the clients read.
	 */
	boolean readers() {
		return this.readerPair >= 0;
	}

	/**
	 * Return whether the clients wait for keyspace events (the writers; readers wait by
	 * pub/sub, as the engine resolves them).
	 */
	boolean keyspaceEvents() {
		return this.waitStrategy == WaitStrategy.KEYSPACE_EVENTS;
	}

	/**
	 * Return the poll interval if the clients poll, or 0 if they listen.
	 */
	long pollNanos() {
		return this.spec.waitMode().listens() ? 0 : this.spec.waitMode().pollNanos();
	}

	/**
	 * Return how many permits the clients took turns on, or 0 if they took locks.
	 */
	int permits() {
		return this.permits;
	}

	/**
	 * Return whether the clients' locks were reentrant, the engine's default, while they
	 * were thread owners ({@link Fault#REENTRANT}).
	 */
	boolean threadsReenter() {
		return this.threadsReenter;
	}

	/**
	 * Return whether the clients were two custom owners of two clients each.
	 */
	boolean sharedOwners() {
		return this.sharedOwners;
	}

	/**
	 * Return whether every client took the fair lock.
	 */
	boolean fair() {
		// A run of multi-locks takes none of the single locks' clients, fair or not.
		return this.fair && this.multi == null;
	}

	/**
	 * Return how many fair grants were checked for the order of the queue.
	 */
	int fairGrantsChecked() {
		return checksFairOrder() ? this.fairOrder.checked() : 0;
	}

	/**
	 * Return how many of the holds were read holds.
	 */
	int readHolds() {
		return this.checker.readHolds();
	}

	/**
	 * Return how many writers stopped waiting with a writer intent to drop.
	 */
	int intentsDropped() {
		return this.intentsDropped;
	}

	/**
	 * Return the requests left in the lock's line in Redis once the run is over: every
	 * acquisition has ended, so each was taken or withdrawn, and none should be left.
	 */
	List<?> requestsLeft() {
		if (this.multi != null) {
			return this.multi.requestsLeft();
		}
		// The run may end inside a stall that began after the last script ran: look
		// once Redis answers again.
		this.clock.advanceTo(Math.max(this.clock.nanos(), this.redis.stalledUntil()));
		settleAfterFaults();
		Object left = this.redis.inspect("ZRANGE", LockKeys.requests(this.spec.lockKey()), "0", "-1");
		// But those whose withdrawal never reached Redis (Fault.CUT): the line's
		// lifetime ends them, which keysLeft() checks.
		return (left instanceof List<?> list)
				? list.stream().filter((member) -> !this.lostReplies.mayBeLeft(member)).toList() : List.of();
	}

	/**
	 * Return how many commands lost their reply after they ran in Redis and before they
	 * reached it, how many of the first ran late, then how many failures of each
	 * {@link LostReplies.Failure} the clients saw.
	 */
	int[] lostReplies() {
		int[] cuts = this.lostReplies.counts();
		int[] failures = this.lostReplies.failures();
		int[] all = new int[cuts.length + failures.length];
		System.arraycopy(cuts, 0, all, 0, cuts.length);
		System.arraycopy(failures, 0, all, cuts.length, failures.length);
		return all;
	}

	/**
	 * Return the longest lease a hold of this run may have: an extension's, or the
	 * writers' long lease.
	 */
	private long longestLeaseMs() {
		return Math.max(OTHER_LEASES_MS[2], LEASE_MS);
	}

	/**
	 * A failover may bring back what the run had withdrawn or released (a request, a
	 * hold): let the longest lease and claim pass after the last fault, as the check for
	 * keys left lets them pass after the run.
	 */
	private void settleAfterFaults() {
		long last = this.redisFaults.lastNanos();
		if (last != Long.MIN_VALUE) {
			this.clock.advanceTo(
					Math.max(this.clock.nanos(), last + 2 * longestLeaseMs() * MS + HandOffRequest.CLAIM_MILLIS * MS));
		}
		if (this.redisFaults.counts()[0] > 0) {
			// A request withdrawn before a failover may come back with it, and nobody
			// withdraws it again: it goes with its line, which lives as long as a request
			// after the last filing (seed 2181), as one whose withdrawal was lost does.
			this.clock.advanceTo(this.clock.nanos() + HandOffRequest.VALIDITY_MILLIS * MS);
		}
	}

	/**
	 * Return how many grants read after a failover brought their hold back while their
	 * reply was in flight took a token older than one it lost
	 * ({@link HoldChecker#inFlightTokensBroughtBack()}).
	 */
	int inFlightTokensBroughtBack() {
		return this.checker.inFlightTokensBroughtBack();
	}

	/**
	 * Return how many writers' grants took back an older token that Redis had granted
	 * their owner but no caller held ({@link HoldChecker#unheldTokensBroughtBack()}).
	 */
	int unheldTokensBroughtBack() {
		return this.checker.unheldTokensBroughtBack();
	}

	/**
	 * Return how many failovers were done, how many writes they lost, and how many keys
	 * were evicted ({@link RedisFaults}); then how many holds faults lost, cut short, how
	 * many locks kept for a minimum hold they lost, and how many replies to a lost hold's
	 * renewal, extension or release were checked ({@link LostState}), and how many grants
	 * took a token a failover brought back ({@link HoldChecker#tokensBroughtBack()}), and
	 * how many acquisitions failed as a self-deadlock after a fault.
	 */
	int[] redisFaults() {
		int[] done = this.redisFaults.counts();
		int[] lost = this.lostState.counts();
		return new int[] { done[0], done[1], done[2], lost[0], lost[1], lost[2], lost[3],
				this.checker.tokensBroughtBack(), this.selfDeadlocksAfterFaults };
	}

	/**
	 * Return how many holds were orphaned by an attempt or a release without a reply, and
	 * how many of them were seen to end ({@link OrphanedHolds}).
	 */
	int[] orphans() {
		return this.orphans.counts();
	}

	/**
	 * Return whether the clients checked their grants' replicas.
	 */
	boolean replicaChecks() {
		return this.replicaChecks;
	}

	/**
	 * Return the replica checks: run, confirmed, refused, failed, ended at the call's
	 * bound, cancelled.
	 */
	int[] replicaCounts() {
		return this.replicaCounts.clone();
	}

	/**
	 * Return the first acquisition that failed as a self-deadlock after a fault, if one
	 * did.
	 */
	@Nullable String firstSelfDeadlock() {
		return this.firstSelfDeadlock;
	}

	/**
	 * Return how many renewals, extensions and re-entries were granted, and how many
	 * holds joined another client's hold of the same owner, in that order.
	 */
	long[] confirmedLeases() {
		return this.confirmedLeases.clone();
	}

	int steps() {
		return (this.multi != null) ? this.multi.steps() : this.steps;
	}

	/**
	 * Return how many waits a cancel ended asleep, a cancel ended with the reply of an
	 * attempt in flight, whose grant was then released, and an interrupt ended at a
	 * sleep, in that order.
	 */
	int[] cancellations() {
		return this.cancellations.counts();
	}

	/**
	 * Return how many subscriptions had a gap, and how many of those gaps ended them.
	 */
	int[] subscriptionGaps() {
		return this.subscriptionGaps.counts();
	}

	/**
	 * Return how many releases kept the lock for what was left of a minimum hold.
	 */
	long keptReleases() {
		return this.keptReleases;
	}

	/**
	 * Return how many readers' and permits' releases kept them for a minimum hold.
	 */
	long[] sharedKeptReleases() {
		return new long[] { this.sharedKeeps.keptReads(), this.sharedKeeps.keptPermits() };
	}

	/**
	 * Return the bound on any wait in a run without faults, from the guarantees: N ×
	 * (hold time + one message + one round trip) for N requests ahead, here with holds of
	 * at most 3 ms, a message or each way of a round trip at most 5 ms, and at most
	 * {@code clients - 1} clients ahead; plus the waiter's own last round trip.
	 */
	static long calmWaitBoundNanos(int clients) {
		return calmWaitBoundNanos(clients, 0);
	}

	/**
	 * Return the bound on any wait in a run without faults where every client polls every
	 * {@code pollNanos} (or listens, for 0): a poller learns that its turn came, a
	 * reservation for it, at its next poll, not by a message, so each waiter ahead costs
	 * up to a poll interval instead of a message, and so does the waiter's own turn.
	 */
	static long calmWaitBoundNanos(int clients, long pollNanos) {
		return calmBoundForHoldsAhead(clients - 1, pollNanos);
	}

	private static long calmBoundForHoldsAhead(int holdsAhead, long pollNanos) {
		long hold = 3 * MS;
		long message = Math.max(5 * MS, pollNanos);
		long roundTrip = 2 * 5 * MS;
		return holdsAhead * (hold + message + roundTrip) + roundTrip;
	}

	/**
	 * Return the bound on any wait of this run without faults: as
	 * {@link #calmWaitBoundNanos(int, long)}, with the holds that may come ahead of a
	 * waiter counted from the local lines of the run ({@link JvmLayout#holdsAhead}): with
	 * clients sharing a JVM, a waiter behind others in its JVM's line is not yet in the
	 * line in Redis, and other lines' requests may go ahead of each of its line's. The
	 * longest of its clients' bounds (before the run, or with multi-locks, the four
	 * clients').
	 */
	long waitBoundNanos(long pollNanos) {
		if (this.multi != null || this.clients.isEmpty()) {
			// Multi-lock runs keep a line for each client: the four clients' bound.
			return calmWaitBoundNanos(4, pollNanos);
		}
		int holdsAhead = 0;
		for (Client client : this.clients.values()) {
			holdsAhead = Math.max(holdsAhead, client.holdsAhead);
		}
		return calmBoundForHoldsAhead(holdsAhead, pollNanos);
	}

	/**
	 * Count, for each client, the holds that may be granted to others while it waits
	 * ({@link JvmLayout#holdsAhead}), from the local lines the clients wait in.
	 */
	private void countHoldsAhead() {
		Map<String, Integer> sizes = new java.util.HashMap<>();
		for (Client client : this.clients.values()) {
			sizes.merge(client.lineKey, 1, Integer::sum);
		}
		for (Client client : this.clients.values()) {
			boolean otherShared = sizes.entrySet()
				.stream()
				.anyMatch((size) -> !size.getKey().equals(client.lineKey) && size.getValue() >= 2);
			client.holdsAhead = JvmLayout.holdsAhead(sizes.get(client.lineKey), sizes.size() - 1, otherShared);
		}
	}

	/**
	 * Return the most an acquisition waited past its own client's bound in a run without
	 * faults (for listeners: {@link #calmWaitBoundNanos(int, long)} with the holds that
	 * may come ahead of that client, {@link JvmLayout#holdsAhead}), negative if none did;
	 * and whose wait it was. The clients of a line of three wait up to 5 holds, the lone
	 * client beside them 2.
	 */
	long mostPastOwnBoundNanos() {
		return this.mostPastOwnBoundNanos;
	}

	String mostPastOwnBound() {
		return this.mostPastOwnBound;
	}

	/**
	 * Return the longest time an acquisition took, from its start to the grant.
	 */
	long longestWaitNanos() {
		// With multi-locks, a single lock's: a multi-lock waiter's is not bounded.
		return (this.multi != null) ? this.multi.longestSingleWaitNanos() : this.longestWaitNanos;
	}

	/**
	 * Return who waited longest, from when to when, for a failure's message.
	 */
	String longestWait() {
		return (this.multi != null) ? this.multi.longestWait() : this.longestWait;
	}

	/**
	 * Return the bound on how long a waiter for a permit waits while a permit is free in
	 * Redis, in a run without faults: a release's message reaches it, and its attempt
	 * takes the permit and replies, within one message and one round trip (5 ms each
	 * way).
	 */
	static long calmFreePermitBoundNanos() {
		return 5 * MS + 2 * 5 * MS;
	}

	/**
	 * Return the longest time an acquiring client waited while a permit was free in Redis
	 * (0 for a lock).
	 */
	long longestFreePermitWaitNanos() {
		return this.longestFreePermitWaitNanos;
	}

	/**
	 * Return who waited longest beside a free permit, from when to when.
	 */
	String longestFreePermitWait() {
		return this.longestFreePermitWait;
	}

	/** Return how many writers' tries found the lock taken. */
	int triesRefused() {
		return this.triesRefused;
	}

	/**
	 * Return how many acquisitions ended without the lock, tries aside.
	 */
	int gaveUp() {
		return (this.multi != null) ? this.multi.gaveUp()[0] + this.multi.gaveUp()[1] : this.gaveUp;
	}

	/**
	 * Return how many of them spent part of their wait behind a lock kept for a minimum
	 * hold: such a wait may run out, and what it waited besides is measured as any other
	 * ({@link #longestWaitNanos()}).
	 */
	int gaveUpBehindKept() {
		return this.gaveUpBehindKept;
	}

	/**
	 * Return how many scripts the clients ran on the model: the lock operations of the
	 * run (acquire attempts, renewals, extensions, releases and withdrawals, each re-sent
	 * run counted).
	 */
	long scripts() {
		return (this.multi != null) ? this.multi.scripts() : this.scripts;
	}

	/**
	 * Run without the hand-off oracles ({@link HandOffOrder}), so that a planted hand-off
	 * bug is left to the bound on the waits.
	 */
	void muteHandOffOracles() {
		this.handOffOrder.mute();
		if (this.multi != null) {
			this.multi.muteHandOffOracles();
		}
	}

	/**
	 * Hold each reservation's first attempt to its claim ({@link HandOffOrder}): for a
	 * run whose only faults are message faults. Single locks only.
	 */
	void holdReservationsToTheirClaim() {
		this.handOffOrder.holdReservationsToTheirClaim(this.heardReservations::contains);
	}

	/**
	 * Return, where reservations are held to their claim
	 * ({@link HandOffOrder#claimsChecked}): how many were tried in time, how many of
	 * those before anyone heard of them, how many were never tried nor withdrawn; and how
	 * many {@code reserved:} messages the run dropped.
	 */
	long[] reservationClaims() {
		long[] checked = this.handOffOrder.claimsChecked();
		return new long[] { checked[0], checked[1], checked[2], this.droppedReservationMessages };
	}

	/**
	 * Return how many reservations {@link HandOffOrder} checked for their order and their
	 * message.
	 */
	long reservationsChecked() {
		return (this.multi != null) ? this.multi.reservationsChecked() : this.handOffOrder.checked();
	}

	/**
	 * Return how many runs filed a request that was in its line already, each checked to
	 * keep its place ({@link LineOrder}).
	 */
	long refilingsChecked() {
		return (this.multi != null) ? this.multi.refilingsChecked() : this.handOffOrder.refilingsChecked();
	}

	/**
	 * Return the keys left in Redis once the longest lease and claim of the run have
	 * passed, but the fencing counter, which is meant to outlive them (only call after
	 * {@link #run}). Every hold was released or ran out, every request taken or
	 * withdrawn.
	 */
	List<String> keysLeft() {
		if (this.multi != null) {
			return this.multi.keysLeft();
		}
		settleAfterFaults();
		// A request whose withdrawal never reached Redis (Fault.CUT) goes with its line,
		// which lives as long as a request after the last filing.
		long line = this.lostReplies.leftRequests() ? HandOffRequest.VALIDITY_MILLIS * MS : 0;
		// A fair leave that never reached Redis leaves its waiter in the queue, which
		// nobody prunes once the run is over: the queue's keys go twice the fair waiter
		// timeout after the last fair attempt, as acquire-fair.lua sets them (seed 3122).
		if (this.lostReplies.leftQueue()) {
			line = Math.max(line, 2 * this.spec.fairWaiterTimeoutMillis() * MS);
		}
		this.clock.advanceTo(this.clock.nanos() + 2 * longestLeaseMs() * MS + HandOffRequest.CLAIM_MILLIS * MS + line);
		String fence = LockKeys.fence(this.spec.lockKey());
		return this.redis.keys().stream().filter((key) -> !key.equals(fence)).sorted().toList();
	}

	/**
	 * Return every event of the run, for a shrunk failure.
	 */
	List<String> events() {
		return (this.multi != null) ? this.multi.events() : List.copyOf(this.trace);
	}

	/**
	 * Return the last events of the run, for a failure's message.
	 */
	String trace(int last) {
		if (this.multi != null) {
			return this.multi.trace(last);
		}
		List<String> tail = this.trace.subList(Math.max(0, this.trace.size() - last), this.trace.size());
		return "seed " + this.seed + ", last " + tail.size() + " of " + this.trace.size() + " events:\n"
				+ String.join("\n", tail);
	}

	private void at(long delay, String what, Runnable action) {
		at(this.clock.nanos() + delay, what, action, false);
	}

	private void redisAt(long delay, String what, Runnable action) {
		at(this.clock.nanos() + delay, what, action, true);
	}

	private void at(long at, String what, Runnable action, boolean needsRedis) {
		this.events.add(new Event(at, this.sequence++, what, action, needsRedis, false));
	}

	/**
	 * A network delay: mostly tens of microseconds, sometimes milliseconds.
	 */
	private long network() {
		return this.random.nextInt(10) == 0 ? this.random.between(0, 5 * MS) : this.random.between(0, 100_000);
	}

	/**
	 * A duration around one of the protocol's constants: just below, at, or just above
	 * it.
	 */
	private long aroundConstant() {
		return aroundConstant(this.random);
	}

	/**
	 * A duration around one of the protocol's constants, drawn from {@code random}.
	 */
	static long aroundConstant(SimulationRandom random) {
		long[] constants = { LEASE_MS * MS, HandOffRequest.CLAIM_MILLIS * MS, Deadline.LEASE_END_MARGIN_NANOS,
				LEASE_MS * MS / 3, OTHER_LEASES_MS[0] * MS, OTHER_LEASES_MS[0] * MS / 3, OTHER_LEASES_MS[2] * MS };
		long constant = constants[random.nextInt(constants.length)];
		long[] offsets = { -MS, -1, 0, 1, MS };
		return Math.max(0, constant + offsets[random.nextInt(offsets.length)]);
	}

	private Object eval(ScriptCall call) {
		this.scripts++;
		return this.handOffOrder.run(call, () -> this.redis.eval(call.script().name(), call.keys(), call.argv()));
	}

	/**
	 * One simulated client: a process with one thread that takes the lock, works, and
	 * releases it, as many times as asked. It acquires with the engine's driver
	 * ({@link SingleAcquisition}) over a {@link SimulatedPort} of its own, in its JVM's
	 * {@link LocalLines}; a fair client with {@link FairAcquisition}.
	 */
	private final class Client implements SimulatedPort.Calls {

		private final String name;

		private final String owner;

		// The lock it takes: the writers' lock, or the read lock of the same name.
		private final LockSpec spec;

		private final boolean reader;

		// Whether it takes a permit of a semaphore, which it does not re-enter.
		private final boolean permit;

		// The driver's local lines of its JVM, and its own port and scripts.
		private final LocalLines lines;

		private final SimulatedPort port;

		private final DriverCommands commands;

		// Which local line it waits in: its JVM's, for its lock kind.
		private final String lineKey;

		// How many holds may be granted to others while it waits (JvmLayout).
		private int holdsAhead;

		private int left;

		// Acquiring: from its start until it holds, or goes on without the lock.
		private boolean busy;

		// The driver's acquisition under way, until its end settled or it is cancelled.
		private @Nullable AcquisitionRun<Grant> run;

		// The port and completion of the current acquisition, which tell its end once
		// what it sent has settled, a cancel's too.
		private @Nullable SettledRun<Grant> settling;

		// Whether that acquisition ended without the lock, its end settling: its caller
		// counts on no hold of it.
		private boolean failing;

		// Whether an attempt of the current fair acquisition was granted in Redis.
		private boolean fairGranted;

		// The hold its acquisition asks for, for faults that lose it (LostState).
		private @Nullable String acquiringHold;

		// The spec of the current acquisition: a writer's may carry a minimum hold.
		private LockSpec acquiring;

		// Whether the current acquisition may find its owner holding the lock.
		private boolean holdsIt;

		private long startedNanos;

		// What requests of waiters gone when faults stopped may cost this acquisition.
		private long goneAheadNanos;

		// Since when this client has been acquiring while a permit was free, or -1.
		private long freePermitSince = -1;

		// Whether the current acquisition was cancelled.
		private boolean cancelled;

		// Attempts the driver sent whose end did not come yet. What else the acquisition
		// sent (a release of an unused grant, a withdrawal, a fair queue leave) its
		// SettledRun waits for, and the port runs it before the thread's next commands
		// (seed 1041: a fair waiter's next attempt overtook the leave of its cancelled
		// one, and found its old place ahead of another waiter's).
		private int attemptsInFlight;

		// The holds this client counts on (its outer hold and a nested one), released or
		// not.
		private final List<Held> holds = new ArrayList<>();

		// A re-entry in flight: the thread that sent it is waiting for its reply, and
		// releases afterwards.
		private boolean reentering;

		private @Nullable Runnable afterReentry;

		// The hold id of a re-entry in flight, for faults that lose it (LostState).
		private @Nullable String reentryHold;

		// When the re-entry in flight first ran in Redis, or -1.
		private long reentryRanNanos = -1;

		// The engine's hold registry of its JVM: it renews the holds drawn to be renewed,
		// and says whether this owner's next acquisition holds the lock.
		private final HoldRegistry registry;

		// Whether a command of this client lost its reply in this run.
		private boolean lostAReply;

		// The replica check of its grants, in the runs that check replicas, and the hold
		// of the grant it checks now.
		private final @Nullable ReplicaWait replicas;

		private @Nullable String checkingHold;

		// The holds of its attempts whose reply will never come, for the planted
		// LOST_ATTEMPT_NEVER_UNDONE.
		private final Set<String> lostAttempts = new HashSet<>();

		Client(String name, String owner, LockSpec spec, int acquisitions, LocalLines lines, HoldRegistry registry,
				String lineKey) {
			this.name = name;
			this.registry = registry;
			this.owner = owner;
			this.spec = spec;
			this.reader = spec.kind().waitsAsReader();
			this.permit = spec.permits() > 0;
			this.lines = lines;
			this.lineKey = lineKey;
			this.port = new SimulatedPort(name, LockSimulation.this.world, this);
			// The registry hears of the attempts that may set a lease the owner has.
			this.commands = new DriverCommands(this.port, Long.parseLong(FENCE_IDLE_MS), true, registry);
			this.replicas = LockSimulation.this.replicaChecks ? new ReplicaWait(this.port,
					new SimulatedReplicas(name, this.port, LockSimulation.this.world, LockSimulation.this.redis,
							LockSimulation.this.replicaDraws,
							LockSimulation.this.clientBug == ClientBug.REPLICA_COUNT_IGNORES_LAG),
					true, 1, SimulatedReplicas.TIMEOUT_MS, registry) : null;
			this.left = acquisitions;
			this.acquiring = spec;
		}

		void start() {
			if (this.busy) {
				// One thread, one acquisition at a time: an acquisition that ended twice.
				throw new IllegalStateException(this.name + " starts an acquisition while acquiring");
			}
			if (this.left-- <= 0) {
				return;
			}
			// A custom owner always counts as holding the lock (no take-over), as in the
			// engine.
			this.acquiring = (this.reader || this.permit) ? sharedSpec(this.spec) : writerOrTrySpec();
			if (this.acquiring.holdAtLeastMillis() > 0) {
				LockSimulation.this.trace
					.add("           " + this.name + " holds at least " + this.acquiring.holdAtLeastMillis() + " ms");
			}
			// A thread owner's, as the blocking engine's registry says: a hold of its own
			// may still be in Redis after a reply that never came.
			this.holdsIt = this.registry.holdsLocally(this.owner, this.acquiring.lockKey());
			this.busy = true;
			this.cancelled = false;
			this.startedNanos = LockSimulation.this.clock.nanos();
			this.goneAheadNanos = goneAheadNanos();
			Cancellations.Stop stop = LockSimulation.this.cancellations.draw();
			boolean stops = stop != null && LockSimulation.this.faults.contains(Fault.CANCEL);
			@SuppressWarnings("unchecked")
			AcquisitionRun<Grant>[] started = new AcquisitionRun[1];
			// The run's end is told once it settled, as both templates tell it.
			long wait = this.acquiring.waitNanos();
			SettledRun<Grant> settled = new SettledRun<>(this.port,
					Completion.of((grant) -> granted(started[0], grant), (error) -> failed(started[0], error)),
					SETTLE_NANOS, (wait < 0 || this.acquiring.progressAware()) ? -1 : wait + SETTLE_NANOS);
			this.settling = settled;
			this.failing = false;
			Completion<Grant> completion = Completion.of(settled::granted, (error) -> {
				this.failing = true;
				// A fair waiter waits no more in the queue's order once the driver ended
				// its wait, though its end is told only once its leave replied (seed
				// 2420: a waiter whose leave had run in Redis was still taken to wait).
				LockSimulation.this.fairOrder.ended(this.name);
				settled.failed(error);
			});
			if (this.acquiring.kind().queuesInRedis()) {
				this.fairGranted = false;
				LockSimulation.this.fairOrder.started(this.name, this.owner);
			}
			AcquisitionRun<Grant> run = AcquisitionRun.of(this.acquiring, this.owner, this.holdsIt, true, true,
					this.commands.on(settled), this.lines, completion);
			started[0] = run;
			this.acquiringHold = run.hold();
			this.run = run;
			if (stops) {
				// A blocking interrupt is a cancel too: the driver has one way to stop.
				at(stop.delayNanos(), this.name + " is cancelled", () -> cancel(run));
			}
			run.start();
		}

		/**
		 * The driver granted the lock, with the reply of an attempt: count on it.
		 */
		private void granted(AcquisitionRun<Grant> run, Grant grant) {
			if (this.run != run) {
				throw new IllegalStateException(this.name + " is granted by an acquisition that ended");
			}
			this.run = null;
			LockSimulation.this.fairOrder.ended(this.name);
			ReplicaWait replicas = this.replicas;
			if (replicas != null && drawing(Fault.REPLICAS)) {
				confirm(replicas, grant, this.port.ranNanos());
			}
			else {
				hold(grant, this.port.ranNanos());
			}
		}

		/**
		 * Count on a grant once a replica has it, as both templates with replica
		 * acknowledgements do: the engine's {@link ReplicaWait}, bounded by the call's
		 * bound (the wait time plus one command timeout, or the settle time in runs
		 * without command timeouts), which is checked here in runs with them. A grant it
		 * does not confirm, it releases, and the client goes on without it.
		 */
		private void confirm(ReplicaWait replicas, Grant grant, long ranNanos) {
			long wait = this.acquiring.waitNanos();
			long timeout = LockSimulation.this.commandTimeoutNanos;
			long bound = (wait < 0 || this.acquiring.progressAware()) ? -1
					: wait + ((timeout >= 0) ? timeout : SETTLE_NANOS);
			long started = this.startedNanos;
			int[] counts = LockSimulation.this.replicaCounts;
			counts[0]++;
			this.checkingHold = grant.hold();
			LockSimulation.this.trace.add("           " + this.name + " checks token " + grant.token() + "'s replica");
			java.util.concurrent.CompletableFuture<List<Grant>> check = replicas.confirm(List.of(grant),
					new Deadline(this.port, bound, started));
			if (LockSimulation.this.replicaDraws.nextInt(8) == 0 && drawing(Fault.CANCEL)) {
				// As a reactive caller's cancel does: the check's future is cancelled.
				// Its hold stays in Redis until the check ends, as one a lost reply
				// left: the owner's next acquisition may find it (a self-deadlock,
				// for a thread owner that does not re-enter).
				at(LockSimulation.this.replicaDraws.between(0, 150 * MS), this.name + " cancels its replica check",
						() -> this.lostAReply |= check.cancel(false));
			}
			check.handle((ignored, error) -> {
				confirmed(grant, ranNanos, bound, error);
				return null;
			}).exceptionally((thrown) -> {
				// What the client threw, which the future would keep: the run fails.
				at(0, this.name + " fails", () -> {
					throw new IllegalStateException(this.name + " failed after its replica check: " + thrown, thrown);
				});
				return null;
			});
		}

		/**
		 * The replica check of a grant ended: count on the grant if confirmed, else go on
		 * without it.
		 */
		private void confirmed(Grant grant, long ranNanos, long bound, @Nullable Throwable error) {
			int[] counts = LockSimulation.this.replicaCounts;
			long started = this.startedNanos;
			long now = LockSimulation.this.clock.nanos();
			this.checkingHold = null;
			// Held to the bound where a reply not read within the command timeout fails,
			// as with Lettuce; elsewhere a grant may come after it, and is given up.
			if (bound >= 0 && LockSimulation.this.commandTimeoutNanos >= 0 && now - started > bound) {
				LockSimulation.this.checker.violated(String
					.format("%s's replica check of token %d ended %.3f ms after its call began, past its bound of "
							+ "%.3f ms", this.name, grant.token(), (now - started) / 1e6, bound / 1e6));
			}
			if (error == null) {
				counts[1]++;
				LockSimulation.this.replicated.put(grant.hold(), grant.sentNanos() + grant.spec().leaseMillis() * MS);
				hold(grant, ranNanos);
				return;
			}
			Throwable cause = (error instanceof java.util.concurrent.CompletionException wrapped
					&& wrapped.getCause() != null) ? wrapped.getCause() : error;
			// Ended at the call's bound, or cancelled; refused (too few replicas, the
			// hold
			// gone, or its lease over); or failed (no reply, or a failover).
			boolean cancelled = cause instanceof java.util.concurrent.CancellationException;
			boolean atBound = cancelled || cause.getCause() instanceof java.util.concurrent.TimeoutException;
			boolean refused = !atBound && String.valueOf(cause.getMessage()).contains("acquired, but");
			counts[cancelled ? 5 : atBound ? 4 : refused ? 2 : 3]++;
			LockSimulation.this.trace
				.add("           " + this.name + " goes on without token " + grant.token() + ": " + cause.getMessage());
			// The check released it, or will once it ends, which in runs with command
			// timeouts is within one, a WAIT and a round trip: gone as an orphaned hold
			// is.
			long timeout = LockSimulation.this.commandTimeoutNanos;
			if (!atBound || timeout >= 0) {
				long checkLeft = atBound ? timeout + SimulatedReplicas.TIMEOUT_MS * MS + OrphanedHolds.ROUND_TRIP_NANOS
						: 0;
				LostState.Kind kind = this.permit ? LostState.Kind.PERMIT
						: this.reader ? LostState.Kind.READER : LostState.Kind.WRITER;
				LockSimulation.this.orphans.unconfirmed(this.name, kind, this.owner, grant.hold(),
						cancelled ? "cancelled"
								: atBound ? "ended at the call's bound" : refused ? "refused" : "failed",
						now, now + checkLeft, refused);
			}
			endWithoutTheLock(false);
		}

		/**
		 * The driver ended the acquisition without the lock: its wait ran out, an attempt
		 * was refused, or got no reply.
		 */
		private void failed(AcquisitionRun<Grant> run, Throwable error) {
			if (this.cancelled && error instanceof LockInterruptedException) {
				// The cancel's end, told once what the run sent settled.
				endWithoutTheLock(true);
				return;
			}
			if (this.run != run) {
				throw new IllegalStateException(this.name + " hears of an acquisition that ended: " + error);
			}
			this.run = null;
			LockSimulation.this.fairOrder.ended(this.name);
			if (error instanceof io.github.distributedlock.LockTimeoutException && this.acquiring.waitNanos() == 0) {
				// A try found the lock taken: no wait that gave up. Its round trip is
				// measured as a wait.
				LockSimulation.this.triesRefused++;
				waited(" tried in vain after");
				endWithoutTheLock(false);
			}
			else if (error instanceof io.github.distributedlock.LockTimeoutException) {
				giveUp();
			}
			else if (error instanceof RuntimeException failure && selfDeadlockAfterFault(this, failure)) {
				endWithoutTheLock(false);
			}
			else if (error instanceof io.github.distributedlock.LockSelfDeadlockException refusal) {
				refused(refusal);
				endWithoutTheLock(false);
			}
			else if (error instanceof io.github.distributedlock.LockAccessException) {
				// An attempt got no reply: the caller gets the failure. A hold the
				// attempt
				// may have taken in Redis is nobody's: it stays until its lease ends, or
				// the owner's next acquisition takes it over.
				LockSimulation.this.lostReplies.failed(LostReplies.Failure.ACQUISITION);
				endWithoutTheLock(false);
			}
			else {
				throw new IllegalStateException(this.name + ": " + error, error);
			}
		}

		/**
		 * Stop the acquisition as a blocking caller's interrupt does
		 * ({@code CallerWait.await}): the driver's cancel, then the run's
		 * {@link SettledRun#cancelled}, which tells the cancel's error once what the run
		 * sent settled (with an attempt in flight, its reply, and the release of a grant
		 * it brings).
		 */
		private void cancel(AcquisitionRun<Grant> run) {
			SettledRun<Grant> settled = this.settling;
			if (this.run != run || settled == null) {
				return;
			}
			this.cancelled = true;
			if (!run.cancel()) {
				// It ended first, and its end is settling: the caller takes it, as a
				// blocking caller does.
				this.cancelled = false;
				return;
			}
			this.run = null;
			// A fair waiter stopped waits no more in the queue's order.
			LockSimulation.this.fairOrder.ended(this.name);
			if (this.attemptsInFlight == 0) {
				LockSimulation.this.cancellations.cancelledAsleep();
			}
			settled.cancelled(new LockInterruptedException(this.acquiring.name(), new InterruptedException()));
		}

		/**
		 * Return whether a call is the driver's undo of a lost attempt: a release of that
		 * attempt's hold by its id alone ({@code LockKind.releaseUnanswered}: token
		 * {@code 0}; a read hold's or a permit's release names no token anyway).
		 */
		private boolean isUndo(ScriptCall call) {
			String hold = OrphanedHolds.holdOf(call);
			if (hold == null || !this.lostAttempts.contains(hold)) {
				return false;
			}
			ScriptArgs args = call.args();
			return (args instanceof ScriptArgs.Release release && release.token() == 0)
					|| (args instanceof ScriptArgs.ReleaseFair fair && fair.token() == 0)
					|| args instanceof ScriptArgs.ReleaseMember;
		}

		@Override
		public boolean sending(String operation, ScriptCall call) {
			boolean stopped = this.cancelled;
			switch (operation) {
				case "acquire" -> this.attemptsInFlight++;
				case "release" -> {
					String checking = this.checkingHold;
					if (LockSimulation.this.clientBug == ClientBug.UNCONFIRMED_NEVER_RELEASED && checking != null
							&& call.argv().contains(checking)) {
						// The planted bug: the check's release of its grant is never
						// sent.
						return false;
					}
					if (LockSimulation.this.clientBug == ClientBug.LOST_ATTEMPT_NEVER_UNDONE && isUndo(call)) {
						// The planted bug: the undo of a lost attempt is never sent.
						return false;
					}
					if (stopped && LockSimulation.this.clientBug == ClientBug.CANCEL_KEEPS_GRANT) {
						return false;
					}
				}
				case "withdraw" -> {
					if (stopped && LockSimulation.this.clientBug == ClientBug.CANCEL_SKIPS_WITHDRAWAL) {
						return false;
					}
				}
				case "drop-intent" -> LockSimulation.this.intentsDropped++;
				default -> {
				}
			}
			return true;
		}

		/**
		 * Tell the checker of a writer's grant in Redis, whether or not its caller will
		 * hold it ({@link HoldChecker#grantedInRedis}).
		 */
		private void grantedInRedis(ScriptCall call, Object reply) {
			String owner;
			if (call.args() instanceof ScriptArgs.Acquire acquire) {
				owner = acquire.owner();
			}
			else if (call.args() instanceof ScriptArgs.AcquireFair fair) {
				owner = fair.owner();
			}
			else {
				return;
			}
			if (reply instanceof List<?> result && result.size() == 2 && Long.valueOf(1).equals(result.get(0))) {
				LockSimulation.this.checker.grantedInRedis(owner, (Long) result.get(1));
			}
		}

		/**
		 * A release's first run notes whether the lock was kept with its token before it
		 * ({@code heldAgain}).
		 */
		@Override
		public void running(String operation, ScriptCall call) {
			if (operation.equals("release") && call.argv().size() >= 3) {
				LockSimulation.this.keptBeforeRelease.putIfAbsent(call.argv().get(2), keptWith(call.argv().get(1)));
			}
		}

		/**
		 * Check every run of a fair attempt in Redis: a grant against locks kept for a
		 * minimum hold and, where the order is promised, against the queue's order
		 * ({@link FairOrder}); a place taken in the queue is noted.
		 */
		@Override
		public void ran(String operation, ScriptCall call, Object reply) {
			grantedInRedis(call, reply);
			String reentry = this.reentryHold;
			if (operation.equals("acquire") && reentry != null && this.reentryRanNanos < 0
					&& call.argv().contains(reentry)) {
				this.reentryRanNanos = LockSimulation.this.clock.nanos();
			}
			if (!operation.equals("acquire") || !this.acquiring.kind().queuesInRedis() || !this.busy) {
				return;
			}
			List<?> result = (List<?>) reply;
			long now = LockSimulation.this.clock.nanos();
			long status = (Long) result.get(0);
			if (status == 1) {
				checkKept(this.name, (Long) result.get(1), now);
				if (!this.fairGranted) {
					this.fairGranted = true;
					String broken = LockSimulation.this.fairOrder.granted(this.name, now,
							(other) -> LockSimulation.this.clients.values()
								.stream()
								.anyMatch((each) -> each.name.equals(other) && each.run != null && !each.failing));
					// A fault may lose the queue's order (a waiter's place): the order is
					// checked until the first.
					if (broken != null && checksFairOrder() && now - LockSimulation.this.redisFaults.firstNanos() < 0) {
						LockSimulation.this.checker.violated(broken);
					}
				}
			}
			else if (status == 0 && result.size() > 3 && (Long) result.get(3) >= 0) {
				LockSimulation.this.fairOrder.queued(this.name, now);
			}
		}

		@Override
		public void neverRan(String operation, ScriptCall call) {
			if (operation.equals("leave queue")) {
				// The drivers ignore a failed leave: the waiter's place lapses with its
				// heartbeat.
				LockSimulation.this.lostReplies.queueLeft();
			}
			if (operation.equals("withdraw")) {
				// The request stays in the line until its claim and the line's lifetime
				// pass: the engine ignores a failed withdrawal. A withdrawal's last
				// argument is the request.
				LockSimulation.this.lostReplies.requestLeft(call.argv().get(call.argv().size() - 1));
			}
		}

		@Override
		public void ranLate(String operation, ScriptCall call) {
			// An attempt that runs after its acquisition ended may file its request again
			// (or, fair, its place in the queue), after the withdrawal: it stays until
			// its
			// claim and the line's lifetime pass, as a request whose withdrawal never
			// ran.
			String request = "";
			if (call.args() instanceof ScriptArgs.Acquire acquire) {
				request = acquire.request();
			}
			else if (call.args() instanceof ScriptArgs.AcquireRead read) {
				request = read.request();
			}
			if (request != null && !request.isEmpty()) {
				LockSimulation.this.lostReplies.requestLeft(request);
			}
			if (call.args() instanceof ScriptArgs.AcquireFair) {
				LockSimulation.this.lostReplies.queueLeft();
			}
		}

		@Override
		public void hears(String operation, ScriptCall call, long atNanos, boolean replies) {
			String hold = OrphanedHolds.holdOf(call);
			String what = operation;
			if (operation.equals("acquire")) {
				what = "its attempt";
				if (!replies && hold != null) {
					this.lostAttempts.add(hold);
				}
			}
			else if (isUndo(call)) {
				// The driver's undo: a release of the lost attempt's hold by its id
				// alone.
				what = "its undo";
			}
			else if (operation.equals("release")) {
				boolean held = this.holds.stream().anyMatch((each) -> each.grant.hold().equals(hold));
				what = held ? "its release" : "the release of a grant nobody held";
			}
			LostState.Kind kind = this.permit ? LostState.Kind.PERMIT
					: this.reader ? LostState.Kind.READER : LostState.Kind.WRITER;
			LockSimulation.this.orphans.hears(this.name, kind, this.owner, operation, what, call, atNanos, replies);
		}

		@Override
		public void ended(String operation, @Nullable Object reply, long ranNanos) {
			long now = LockSimulation.this.clock.nanos();
			if (reply == null) {
				this.lostAReply = true;
			}
			else {
				LockSimulation.this.orphans.answered(this.name, now);
			}
			if (operation.equals("acquire")) {
				this.attemptsInFlight--;
				AcquireResult result = (reply != null) ? ScriptReplies.acquireResult(this.acquiring, (List<?>) reply)
						: null;
				if (this.cancelled && this.busy && this.run == null) {
					// Cancelled in flight: the reply ends the acquisition, and a grant it
					// brings, in time or too late, is released.
					boolean granted = result != null && result.acquired();
					LockSimulation.this.cancellations.cancelledInFlight(granted);
					if (granted) {
						checkKept(this.name, result.token(), ranNanos);
					}
				}
			}
		}

		/**
		 * An attempt was refused as a self-deadlock, which the caller gets as both
		 * drivers give it. Only a hold of the owner's own that a lost reply left in Redis
		 * explains it (none of the clients holds the lock it asks for, and none asks to
		 * upgrade): a read, fair or permit hold, which no acquire script takes over, or
		 * an exclusive hold while the registry still counted the owner as holding.
		 */
		private void refused(RuntimeException error) {
			boolean explained = error instanceof io.github.distributedlock.LockSelfDeadlockException && this.lostAReply
					&& (this.holdsIt || this.acquiring.kind() != LockKind.EXCLUSIVE);
			if (!explained) {
				throw new IllegalStateException(this.name + ": " + error);
			}
			LockSimulation.this.trace.add("           " + this.name + " is refused as a self-deadlock ("
					+ this.acquiring.kind() + ", holds it: " + this.holdsIt + ")");
			LockSimulation.this.lostReplies.failed(LostReplies.Failure.SELF_DEADLOCK);
		}

		/**
		 * Return whether the message was taken as a grant, as the planted bug
		 * {@link ClientBug#MESSAGE_AS_GRANT} takes it: the reservation for the request
		 * its acquisition filed.
		 */
		boolean takenAsGrant(ReleaseMessage parsed) {
			SingleAcquisition waiting = (this.run instanceof SingleAcquisition single) ? single : null;
			HandOffRequest filed = (waiting != null) ? waiting.request() : null;
			if (LockSimulation.this.clientBug == ClientBug.MESSAGE_AS_GRANT && waiting != null && filed != null
					&& parsed instanceof ReleaseMessage.Reserved reserved
					&& reserved.request().equals(filed.member())) {
				// The planted bug: no attempt, the message is taken as the grant.
				Object token = LockSimulation.this.redis.inspect("HGET", this.spec.lockKey(), "token");
				long next = (token != null) ? Long.parseLong(token.toString()) + 1 : 1;
				takeOver(waiting, waiting.hold(), next);
				return true;
			}
			return false;
		}

		/**
		 * A planted bug's grant, which no script gave: the acquisition is dropped, and
		 * the client counts on the hold it asked for, with the given token.
		 */
		private void takeOver(AcquisitionRun<Grant> waiting, String hold, long token) {
			this.run = null;
			waiting.cancel();
			long now = LockSimulation.this.clock.nanos();
			hold(new Grant(this.acquiring, this.owner, token, hold, now, true, Duration.ZERO, 1), now);
		}

		/**
		 * Measure the acquisition that ends now: how long it waited, but for the time it
		 * spent behind a lock kept for a minimum hold, which it waits out (that time is
		 * not the line's).
		 * @return that time
		 */
		private long waited(String how) {
			long now = LockSimulation.this.clock.nanos();
			long behindKept = keptWithin(this.startedNanos, now);
			long waited = now - this.startedNanos - behindKept;
			if (waited > LockSimulation.this.longestWaitNanos) {
				LockSimulation.this.longestWaitNanos = waited;
				LockSimulation.this.longestWait = String.format(
						"%s%s %.3f ms, from %.3f ms to %.3f ms, besides %.3f ms behind a kept lock", this.name, how,
						waited / 1e6, (this.startedNanos - 1_000_000 * MS) / 1e6, (now - 1_000_000 * MS) / 1e6,
						behindKept / 1e6);
			}
			long ownBound = calmBoundForHoldsAhead(this.holdsAhead, 0);
			long quiet = LockSimulation.this.quietFromNanos;
			if (quiet >= 0 && this.startedNanos >= quiet) {
				LockSimulation.this.recoveredWaits++;
				long allowed = ownBound + Math.max(0, quiet + LockSimulation.this.leftoverNanos - this.startedNanos)
						+ this.goneAheadNanos;
				if (waited > allowed) {
					LockSimulation.this.checker.violated(String.format(
							"%s%s %.3f ms besides kept locks, from %.3f ms, once faults stopped at %.3f ms: past its "
									+ "bound %.1f ms (%d holds ahead), %.3f ms for what the faults left and %.3f ms "
									+ "for requests of waiters gone",
							this.name, how, waited / 1e6, (this.startedNanos - 1_000_000 * MS) / 1e6,
							(quiet - 1_000_000 * MS) / 1e6, ownBound / 1e6, this.holdsAhead,
							LockSimulation.this.leftoverNanos / 1e6, this.goneAheadNanos / 1e6));
				}
			}
			if (waited - ownBound > LockSimulation.this.mostPastOwnBoundNanos) {
				LockSimulation.this.mostPastOwnBoundNanos = waited - ownBound;
				LockSimulation.this.mostPastOwnBound = String.format(
						"%s%s %.3f ms besides kept locks, from %.3f ms, its bound %.1f ms (%d holds ahead)", this.name,
						how, waited / 1e6, (this.startedNanos - 1_000_000 * MS) / 1e6, ownBound / 1e6, this.holdsAhead);
			}
			return waited;
		}

		/**
		 * Return what the requests of waiters gone when faults stopped may still cost an
		 * acquisition that starts now: a claim and a hand-off for each left in the line,
		 * and what is left of the claim of a reservation for one of them.
		 */
		private long goneAheadNanos() {
			Set<String> gone = LockSimulation.this.requestsGone;
			if (LockSimulation.this.quietFromNanos < 0 || gone.isEmpty()) {
				return 0;
			}
			String lock = LockSimulation.this.spec.lockKey();
			Object line = LockSimulation.this.redis.inspect("ZRANGE",
					LockKeys.requests(LockSimulation.this.spec.lockKey()), "0", "-1");
			long left = (line instanceof List<?> members)
					? members.stream().filter((member) -> gone.contains(String.valueOf(member))).count() : 0;
			long cost = left * (HandOffRequest.CLAIM_MILLIS * MS + calmBoundForHoldsAhead(1, 0));
			Object reserved = LockSimulation.this.redis.inspect("HGET", lock, "reserved");
			if (reserved != null && gone.contains(String.valueOf(reserved))) {
				cost += ((Number) LockSimulation.this.redis.inspect("PTTL", lock)).longValue() * MS
						+ calmBoundForHoldsAhead(1, 0);
			}
			return cost;
		}

		private void giveUp() {
			LockSimulation.this.gaveUp++;
			checkGaveUpWithoutProgress(this);
			long now = LockSimulation.this.clock.nanos();
			long kept = keptWithin(this.startedNanos, now);
			waited(" gave up after");
			if (kept > 0) {
				// Its wait ran out behind locks kept for a minimum hold.
				LockSimulation.this.gaveUpBehindKept++;
			}
			endWithoutTheLock(false);
		}

		/**
		 * End the acquisition without the lock (it gave up, failed, or was stopped), once
		 * its end settled: the driver withdrew its request, dropped its writer intent and
		 * released grants nobody uses, and the thread goes on.
		 */
		private void endWithoutTheLock(boolean stopped) {
			this.busy = false;
			this.acquiringHold = null;
			this.settling = null;
			next();
		}

		/**
		 * Count on a grant whose acquire script ran at {@code ranNanos}: the engine's own
		 * {@link LockHold}, registered in its JVM's {@link HoldRegistry}, renewed there
		 * or not, extended, re-entered and released on this client's port.
		 */
		private void hold(Grant grant, long ranNanos) {
			checkKept(this.name, grant.token(), ranNanos);
			LockSimulation.this.grants.add(new Granted(this.name, this.owner, !this.reader && !this.permit,
					LockSimulation.this.grantedTokens.add(grant.token()), ranNanos));
			this.busy = false;
			this.acquiringHold = null;
			waited(" waited");
			long now = LockSimulation.this.clock.nanos();
			SimulationRandom random = LockSimulation.this.random;
			// Its JVM's watchdog renews it every third of its lease, if drawn.
			boolean renewed = random.nextInt(4) == 0 && drawing(Fault.RENEW);
			Held held = held(renewed ? renewed(grant) : grant, now);
			this.holds.clear();
			this.holds.add(held);
			for (Client other : LockSimulation.this.clients.values()) {
				// Another client's permit of the same owner is a permit of its own.
				if (other != this && !this.permit && other.owner.equals(this.owner)
						&& other.holds.stream().anyMatch((hold) -> hold.live(now))) {
					LockSimulation.this.confirmedLeases[3]++;
					break;
				}
			}
			boolean lost = lostInFlight(this, held, now);
			if (this.permit) {
				LockSimulation.this.checker.permitHeld(this.name, grant.token(), grant.sentNanos(), now,
						held.endNanos(), lost);
			}
			else {
				LockSimulation.this.checker.held(this.name, this.owner, grant.token(), now, held.endNanos(),
						this.reader, lost);
			}
			long work;
			if (renewed) {
				work = random.between(0, 3 * LEASE_MS * MS);
			}
			else {
				work = (random.nextInt(8) == 0 && drawing(Fault.PAUSE)) ? aroundConstant() : random.between(0, 3 * MS);
			}
			if (random.nextInt(4) == 0 && drawing(Fault.EXTEND)) {
				at(random.between(0, work), this.name + " extends token " + grant.token(), () -> extend(held));
			}
			// Readers don't re-enter here, and a permit has no re-entry (each acquisition
			// takes a permit of its own).
			if (random.nextInt(4) == 0 && drawing(Fault.REENTER) && !this.reader && !this.permit) {
				at(random.between(0, work), this.name + " re-enters token " + grant.token(), () -> reenter(held, work));
			}
			at(work, this.name + " releases token " + grant.token(), () -> release(held));
		}

		/**
		 * Make the engine's hold of a grant whose reply was read at {@code grantedNanos},
		 * registered in the JVM's registry as a template registers it, its events told to
		 * this client's checks.
		 */
		private Held held(Grant grant, long grantedNanos) {
			Reports reports = new Reports();
			Held held = new Held(this.registry, grant, grantedNanos, this.name, reports);
			reports.held = held;
			this.registry.add(held);
			this.registry.announce(held);
			return held;
		}

		/**
		 * Extend a live hold to a shorter or a longer lease, with the hold's own
		 * extension; a failure leaves the deadline where it was.
		 */
		private void extend(Held held) {
			if (!held.live(LockSimulation.this.clock.nanos())) {
				return;
			}
			long lease = OTHER_LEASES_MS[LockSimulation.this.random.nextInt(OTHER_LEASES_MS.length)];
			LockSimulation.this.trace.add("           " + this.name + " extends " + held + " to " + lease + " ms");
			// The caller gets the reply or the failure; the events tell the checks.
			held.hold().extend(this.port, lease, Completion.of((result) -> {
			}, (error) -> {
			}));
		}

		/**
		 * Take the lock again, as its owner, with another lease, as the blocking template
		 * does: the driver's acquisition, a try (the re-entry waits for nothing) that
		 * says whether the owner holds the lock as the registry says it. The nested hold
		 * is renewed or extended, and released before the outer hold's work ends.
		 */
		private void reenter(Held outer, long work) {
			long sent = LockSimulation.this.clock.nanos();
			if (!outer.live(sent)) {
				return;
			}
			SimulationRandom random = LockSimulation.this.random;
			LockSpec spec = reentrant(outer.grant.spec(), OTHER_LEASES_MS[random.nextInt(OTHER_LEASES_MS.length)]);
			boolean holdsIt = this.registry.holdsLocally(this.owner, spec.lockKey());
			// Its end is told once it settled, as the blocking template tells it.
			long wait = spec.waitNanos();
			SettledRun<Grant> settled = new SettledRun<>(this.port,
					Completion.of((grant) -> reentered(outer, work, grant), this::reentryFailed), SETTLE_NANOS,
					(wait < 0) ? -1 : wait + SETTLE_NANOS);
			Completion<Grant> completion = Completion.of(settled::granted, (error) -> {
				// The caller counts on its hold no more.
				this.reentryHold = null;
				settled.failed(error);
			});
			AcquisitionRun<Grant> reentry = AcquisitionRun.of(spec, this.owner, holdsIt, true, true,
					this.commands.on(settled), this.lines, completion);
			this.reentryHold = reentry.hold();
			this.reentering = true;
			// When its script first ran: a lock it finds free is granted then.
			this.reentryRanNanos = -1;
			reentry.start();
		}

		/**
		 * The re-entry ended without a nested hold, once its end settled: the lock was
		 * another's, a grant came too late twice (the driver released it), or no reply
		 * came.
		 */
		private void reentryFailed(Throwable error) {
			this.reentering = false;
			this.reentryHold = null;
			if (error instanceof LockAccessException) {
				// The caller's re-entry fails; its outer hold goes on.
				LockSimulation.this.lostReplies.failed(LostReplies.Failure.REENTRY);
			}
			else if (!(error instanceof io.github.distributedlock.LockTimeoutException)
					&& !(error instanceof RuntimeException failure && selfDeadlockAfterFault(this, failure))) {
				throw new IllegalStateException(this.name + "'s re-entry: " + error, error);
			}
			Runnable after = this.afterReentry;
			this.afterReentry = null;
			if (after != null) {
				after.run();
			}
		}

		/**
		 * A re-entry's grant: a nested hold, the engine's {@link LockHold} too.
		 */
		private void reentered(Held outer, long work, Grant grant) {
			SimulationRandom random = LockSimulation.this.random;
			this.reentering = false;
			this.reentryHold = null;
			Runnable after = this.afterReentry;
			this.afterReentry = null;
			long now = LockSimulation.this.clock.nanos();
			// Its JVM's watchdog renews it, if drawn.
			boolean renewed = random.nextInt(2) == 0;
			Held inner = held(renewed ? renewed(grant) : grant, now);
			LockSimulation.this.confirmedLeases[2]++;
			this.holds.add(inner);
			boolean lost = lostInFlight(this, inner, now);
			if (grant.token() != outer.grant.token()) {
				// Its script ran before its reply was read, and granted the lock then
				// (seed 25872: read after a keep that began once an eviction took the
				// grant).
				checkKept(this.name, inner.grant.token(), (this.reentryRanNanos >= 0) ? this.reentryRanNanos : now);
				// The lock was free when the re-entry ran (the outer hold's lease had
				// ended): a hold of its own, which must not overlap the outer one.
				LockSimulation.this.checker.held(this.name, this.owner, inner.grant.token(), now, inner.endNanos(),
						false, lost);
			}
			else if (!lost) {
				LockSimulation.this.checker.extended(this.name, inner.grant.token(), now, inner.endNanos());
			}
			if (random.nextInt(2) == 0) {
				at(random.between(0, work), this.name + " extends " + inner, () -> extend(inner));
			}
			if (after != null) {
				after.run();
			}
			else {
				at(random.between(0, work), this.name + " releases " + inner, () -> releaseInner(inner, null));
			}
		}

		/**
		 * Release a nested hold, then go on with {@code then} once its reply is read.
		 */
		private void releaseInner(Held inner, @Nullable Runnable then) {
			if (inner.hold().isReleased()) {
				// Released already, by the work's own close: wait for its reply.
				if (then != null) {
					if (inner.closed) {
						then.run();
					}
					else {
						inner.afterClose = then;
					}
				}
				return;
			}
			Grant grant = inner.grant;
			long now = LockSimulation.this.clock.nanos();
			if (this.holds.get(0).grant.token() != grant.token()) {
				LockSimulation.this.checker.released(this.name, grant.token(), now);
			}
			else {
				// From now on the holder counts on its other holds of the token only.
				long deadline = now;
				for (Held other : this.holds) {
					if (other != inner && other.grant.token() == grant.token() && other.live(now)
							&& other.endNanos() - deadline > 0) {
						deadline = other.endNanos();
					}
				}
				LockSimulation.this.checker.nestedReleased(this.name, grant.token(), now, deadline);
			}
			inner.afterClose = then;
			sendRelease(inner, () -> {
				inner.closed = true;
				Runnable after = inner.afterClose;
				if (after != null) {
					after.run();
				}
			});
		}

		private void release(Held held) {
			// The thread is waiting for its re-entry's reply; then it releases the nested
			// hold and this one, in that order, each after the other's reply, as
			// try-with-resources does.
			if (this.reentering) {
				this.afterReentry = () -> release(held);
				return;
			}
			for (Held other : this.holds) {
				if (other != held && !other.closed) {
					releaseInner(other, () -> release(held));
					return;
				}
			}
			Grant grant = held.grant;
			long now = LockSimulation.this.clock.nanos();
			// The work ends now, or at the deadline if it ran past it (the handle reports
			// the lease lost).
			LockSimulation.this.checker.released(this.name, grant.token(), Math.min(now, held.endNanos()));
			// The caller's release returns with its reply (the second run's, when the
			// first reply was lost and the command re-sent); only then does it go on.
			sendRelease(held, () -> {
				if (LockSimulation.this.clientBug == ClientBug.LOCAL_HAND_OFF) {
					handOffLocally(grant);
				}
				next();
			});
		}

		/**
		 * Release a hold with the hold's own release, which passes what is left of its
		 * minimum hold, and run {@code then} once its reply is read. If something is
		 * left, the lock must stay taken by nobody else until it ends.
		 */
		private void sendRelease(Held held, Runnable then) {
			Grant grant = held.grant;
			long now = LockSimulation.this.clock.nanos();
			// What the release passes on, as the engine counts it.
			long keepMillis = new HoldLife(grant, held.acquiredNanos).minimumHoldLeftMillis(now);
			// The end of the minimum hold the engine promises (acquired + minimum hold),
			// which the lease caps: Redis keeps the lock at least until the hold's
			// deadline.
			long keptUntil = Math.min(held.acquiredNanos + grant.spec().holdAtLeastMillis() * MS, held.endNanos());
			// A hold a failover or an eviction lost is exempt from the checks, and so is
			// what its release would keep (seed 1829: a read hold whose reader holds were
			// evicted, its release lost).
			if (keepMillis > 0 && keptUntil - now > 0 && held.lostBy == null) {
				KeptLock kept = new KeptLock(this.name, this.owner, grant.token(), grant.hold(), keptUntil, keepMillis,
						held.endNanos());
				recordKept(kept, grant);
				LockSimulation.this.keptHistory.add(kept);
				LockSimulation.this.keptReleases++;
				held.keeping = kept;
				LockSimulation.this.trace
					.add("           " + this.name + " releases " + held + " keeping " + keepMillis + " ms");
			}
			KeptLock keeping = held.keeping;
			LockPort releasing = this.port.whenRan(() -> {
				if (keeping != null && keeping.ranNanos < 0) {
					// The release ran: Redis keeps the lock from now on.
					keeping.ranNanos = LockSimulation.this.clock.nanos();
					keeping.redisEndNanos = keptInRedisUntil(grant.spec(), keeping.ranNanos);
				}
			});
			// Told of the reply, or of the failure: the handle is released anyway, and
			// the
			// hold may stay in Redis until its lease ends.
			held.hold().release(releasing, Completion.of((left) -> then.run(), (error) -> then.run()));
		}

		/**
		 * What becomes of a hold, as the engine's {@link LockHold} tells it: fed to the
		 * registry as the blocking handle feeds {@code HoldRegistry}, and to the checks.
		 */
		private final class Reports implements LockHold.Events {

			private @Nullable Held held;

			private Held held() {
				Held reported = this.held;
				if (reported == null) {
					throw new IllegalStateException(Client.this.name + " hears of a hold not made yet");
				}
				return reported;
			}

			/**
			 * A renewal's or an extension's reply: the holder counts on its lease end
			 * from now on, if its deadline had not passed first (then the holder was
			 * told, and stopped).
			 */
			@Override
			public void replied(LockHold hold, long leaseMillis) {
				Held held = held();
				long now = LockSimulation.this.clock.nanos();
				lostReply(Client.this, held, LockSimulation.this.hearingSentNanos, (leaseMillis >= 0) ? 1 : -1, false);
				if (leaseMillis < 0 || !held.live(now)) {
					return;
				}
				if (hold.leaseEndNanos() - held.endNanos > 0) {
					held.endNanos = hold.leaseEndNanos();
				}
				LockSimulation.this.checker.extended(Client.this.name, held.grant.token(), now, held.endNanos);
				LockSimulation.this.confirmedLeases["renew".equals(LockSimulation.this.hearing) ? 0 : 1]++;
			}

			/**
			 * A renewal or an extension got no reply: the watchdog tries a renewal again
			 * while the lease lasts; an extension's deadline stays where it was.
			 */
			@Override
			public void failed(LockHold hold) {
				// A renewal's port is its watchdog's, which tells the client nothing
				// else.
				Client.this.lostAReply = true;
				LockSimulation.this.lostReplies.failed("renew".equals(LockSimulation.this.hearing)
						? LostReplies.Failure.RENEWAL : LostReplies.Failure.EXTENSION);
			}

			@Override
			public void released(LockHold hold, long result) {
				Held held = held();
				long now = LockSimulation.this.clock.nanos();
				if (result == LockHold.UNKNOWN) {
					LockSimulation.this.lostReplies.failed(LostReplies.Failure.RELEASE);
					return;
				}
				lostReply(Client.this, held, LockSimulation.this.hearingSentNanos, result, true);
				KeptLock keeping = held.keeping;
				if (keeping != null && result < 0) {
					// The hold was lost: there was nothing to keep.
					LockSimulation.this.kept.remove(keeping);
					LockSimulation.this.keptHistory.remove(keeping);
					LockSimulation.this.sharedKeeps.lost(keeping);
					long lastFault = LockSimulation.this.redisFaults.lastNanos();
					if (lastFault != Long.MIN_VALUE && lastFault - held.acquiredNanos >= 0) {
						// A failover or an eviction took it while its release was in
						// flight: a permit counted as taken until the keep's end is not
						// (seed 8039).
						LockSimulation.this.checker.lost(Client.this.name, held.grant.token());
					}
				}
				else if (keeping != null) {
					keeping.read = true;
				}
			}

			/**
			 * The listeners hear of a release without a reply: only a lost reply, a drawn
			 * fault, explains one.
			 */
			@Override
			public void releaseFailed(LockHold hold, LockAccessException failure) {
				if (!LockSimulation.this.faults.contains(Fault.CUT)) {
					LockSimulation.this.checker
						.violated(Client.this.name + "'s release failed with no reply lost: " + failure.getMessage());
				}
			}

			/**
			 * The listeners hear how long the hold lasted: from when its grant's reply
			 * was read, as its holder counts it.
			 */
			@Override
			public void releasedAfter(LockHold hold, Duration heldFor) {
				long held = LockSimulation.this.clock.nanos() - held().acquiredNanos;
				if (heldFor.toNanos() != held) {
					LockSimulation.this.checker.violated(Client.this.name + "'s " + held() + " was reported held for "
							+ heldFor.toNanos() / 1e6 + " ms, but was held " + held / 1e6 + " ms");
				}
			}

			/**
			 * The hold is lost: Redis said it is gone or taken, or its renewals failed
			 * until its lease was over. The work stops.
			 */
			@Override
			public void lost(LockHold hold, boolean goneFromRedis) {
				Held held = held();
				long now = LockSimulation.this.clock.nanos();
				if (hold.isReleased()) {
					return;
				}
				if (!goneFromRedis) {
					LockSimulation.this.lostReplies.failed(LostReplies.Failure.RENEWAL_LOST);
				}
				LockSimulation.this.checker.released(Client.this.name, held.grant.token(), now);
			}

		}

		/**
		 * Record a release that keeps a hold for its minimum hold: a writer's lock, a
		 * reader's stand-in (no writer before it ends) or a permit's (the permit counted
		 * as taken until it ends, Redis's millisecond of slack allowed).
		 */
		private void recordKept(KeptLock kept, Grant grant) {
			if (this.reader) {
				LockSimulation.this.sharedKeeps.keptRead(kept, grant.hold());
			}
			else if (this.permit) {
				LockSimulation.this.sharedKeeps.keptPermit(kept, grant.hold());
				LockSimulation.this.checker.keptUntil(this.name, grant.token(), kept.endNanos - REDIS_MS_SLACK);
			}
			else {
				LockSimulation.this.kept.add(kept);
			}
		}

		private void next() {
			at(LockSimulation.this.random.between(0, 20 * MS), this.name + " next", this::start);
		}

		/**
		 * The planted bug {@link ClientBug#LOCAL_HAND_OFF}: the released lock goes to the
		 * longest waiter of this JVM's line with no attempt in flight, with the next
		 * token, and no script of its own.
		 */
		private void handOffLocally(Grant released) {
			Client next = null;
			for (Client other : LockSimulation.this.clients.values()) {
				if (other != this && other.run != null && other.lineKey.equals(this.lineKey)
						&& other.attemptsInFlight == 0 && (next == null || other.startedNanos < next.startedNanos)) {
					next = other;
				}
			}
			if (next == null) {
				return;
			}
			LockSimulation.this.trace.add("           " + next.name + " takes token " + released.token() + " over from "
					+ this.name + "'s release (the planted local hand-off)");
			next.takeOver(next.run, next.acquiringHold, released.token() + 1);
		}

	}

	/**
	 * Return whether the fair lock's waiters must be granted in the order they joined the
	 * queue: without shared custom owners, whose clients share one place, and without
	 * Redis stalls, which can hold a waiter's heartbeat back past the fair waiter timeout
	 * (then Redis drops it from the queue, as it should). A client's pause (at most about
	 * the longest lease, 2.5 s) and a heartbeat every third of the 5 s timeout stay
	 * within it.
	 */
	private boolean checksFairOrder() {
		return !this.sharedOwners && !this.faults.contains(Fault.STALL);
	}

	/**
	 * A hold as its holder counts on it: a handle of the engine's {@link HoldRegistry}
	 * over its own {@link LockHold}, and the deadline its holder counts on, as the checks
	 * were told it.
	 */
	private static final class Held extends RegisteredHold implements LockContext {

		private final Grant grant;

		// Hears what becomes of the hold after the registry: the checks.
		private final LockHold.Events reports;

		// When the grant's reply was read: the hold counts the minimum hold from then.
		private final long acquiredNanos;

		// The hold's lease end by the local clock when its holder last counted on it: a
		// reply read after it had passed moves it no more (the holder was told the lease
		// was lost, and stopped).
		private long endNanos;

		// Its release's reply was read.
		private boolean closed;

		// The fault that lost (or cut short) the hold in Redis while its holder counts on
		// it, if one did.
		private LostState.@Nullable Damage lostBy;

		// What its release keeps for the minimum hold, if anything.
		private @Nullable KeptLock keeping;

		private @Nullable Runnable afterClose;

		Held(HoldRegistry registry, Grant grant, long acquiredNanos, String thread, LockHold.Events reports) {
			super(registry, grant, thread);
			this.grant = grant;
			this.reports = reports;
			this.acquiredNanos = acquiredNanos;
			this.endNanos = hold().leaseEndNanos();
		}

		@Override
		protected LockHold.Events heard() {
			return this.reports;
		}

		@Override
		protected LockContext listenedTo() {
			return this;
		}

		@Override
		public boolean isHeld() {
			return !hold().isReleased() && !hold().isLost();
		}

		long endNanos() {
			return this.endNanos;
		}

		boolean live(long nowNanos) {
			return !hold().isReleased() && !hold().isLost() && this.endNanos - nowNanos > 0;
		}

		@Override
		public String toString() {
			return "hold " + this.grant.hold().substring(Math.max(0, this.grant.hold().length() - 6)) + " (token "
					+ this.grant.token() + ", " + this.grant.spec().leaseMillis() + " ms)";
		}

	}

	/**
	 * A bug planted into the simulated clients, where the engine's own code would
	 * otherwise decide: the simulator must find it as it finds bugs planted into scripts.
	 */
	enum ClientBug {

		/** The clients decide as the engine does. */
		NONE,

		/**
		 * The engine's bug fixed in 827d627: with keyspace events, a fair release's
		 * {@code next:<owner>} message wakes nobody ({@code NextInLine.wakes} false in
		 * keyspace mode). The lock's {@code del} comes first, while the next waiter is
		 * not named yet, and the name then goes unheeded.
		 */
		KEYSPACE_IGNORES_FAIR_NAME,

		/**
		 * A renewal or an extension counts its lease from when its reply was read, not
		 * from when it was sent.
		 */
		DEADLINE_FROM_REPLY,

		/**
		 * The direct hand-off's error: a waiter takes the message that the lock is
		 * reserved for its request as the grant itself, with the next token, instead of
		 * taking the reservation with its own attempt.
		 */
		MESSAGE_AS_GRANT,

		/**
		 * A waiter cancelled while its attempt was in flight drops the grant the reply
		 * brings instead of releasing it: the lock stays taken until its lease ends.
		 */
		CANCEL_KEEPS_GRANT,

		/**
		 * A waiter cancelled or interrupted does not withdraw its request: it stays in
		 * the lock's line, and a release reserves the lock for nobody waiting.
		 */
		CANCEL_SKIPS_WITHDRAWAL,

		/**
		 * A local hand-off without Redis: a release passes the lock to the head of the
		 * releasing client's local line, asleep, with the next token, as if the release
		 * had granted it; Redis never heard of that holder.
		 */
		LOCAL_HAND_OFF,

		/**
		 * A multi-lock waiter that gives up does not withdraw its request from the lines
		 * it was filed in ({@link MultiAcquisition#filed()}): it stays there, and a
		 * release reserves the lock for nobody waiting.
		 */
		MULTI_SKIPS_WITHDRAWAL,

		/**
		 * A multi-lock's release passes what is left of the minimum hold for its first
		 * lock only (the lock the handle is named after): the others are free at once.
		 */
		MULTI_KEEPS_FIRST_ONLY,

		/**
		 * A renewal whose reply never came counts as confirmed, its lease counted from
		 * when it was sent, instead of being tried again
		 * ({@link HoldLife#renewalFailed}): the holder counts on a lease Redis may never
		 * have set.
		 */
		FAILED_RENEWAL_CONFIRMS,

		/**
		 * An attempt whose reply never came is not undone: the port swallows the driver's
		 * undo (a release of the lost attempt's hold by its id), so a hold the lost
		 * attempt took stays in Redis, counted on by nobody, until its lease ends or its
		 * owner's next acquisition takes it over.
		 */
		LOST_ATTEMPT_NEVER_UNDONE,

		/**
		 * A multi-lock taken in order ({@link InOrderClient}) gives each lock the whole
		 * wait time instead of what is left of it, as the engine's bug that took each
		 * lock of a multi-lock across slots with a fresh command timeout did.
		 */
		IN_ORDER_FRESH_WAIT,

		/**
		 * A multi-lock taken in order ({@link InOrderClient}) never asks whether a lock
		 * it took first is still live ({@code InOrderAcquisition.Steps.isLive} always
		 * true), as the engine did before it took its locks again from the first: granted
		 * with a lock whose lease ran out or that was lost while a later one was waited
		 * for.
		 */
		IN_ORDER_GRANTS_LAPSED,

		/**
		 * The replica check's count acknowledges every {@code WAIT}, whether or not the
		 * replica has the hold ({@link SimulatedReplicas}): a hold it confirmed may be
		 * lost by a failover.
		 */
		REPLICA_COUNT_IGNORES_LAG,

		/**
		 * The port swallows the release the replica check sends for a grant it did not
		 * confirm ({@code ReplicaWait}): the hold stays in Redis, counted on by nobody,
		 * until its lease ends.
		 */
		UNCONFIRMED_NEVER_RELEASED

	}

	/**
	 * What a run may draw besides plain delays: its faults, and what a holder may do with
	 * its hold. A shrunk failure names the ones it could do without.
	 */
	enum Fault {

		/** Redis stalls for about a protocol constant. */
		STALL,

		/** A release message is dropped, duplicated or delivered late. */
		MESSAGE,

		/** A command runs twice, and only the second reply is delivered. */
		RESEND,

		/**
		 * A client pauses for about a constant before reading a reply, or while working.
		 */
		PAUSE,

		/** Holds are renewed as the watchdog does. */
		RENEW,

		/** Holds are extended to a shorter or a longer lease. */
		EXTEND,

		/** Holders take the lock again with another lease. */
		REENTER,

		/**
		 * A quarter of the writers' acquisitions hold the lock at least a minimum hold,
		 * which their release passes on as what is left of it.
		 */
		KEEP,

		/**
		 * A quarter of the readers' acquisitions hold at least a minimum hold, which
		 * their release passes on ({@link SharedKeeps}). Not in the runs without faults:
		 * a writer that waits for readers is not woken when a kept reader's stand-in ends
		 * (docs/design/simulation-model.md, seed 1029).
		 */
		READ_KEEP,

		/**
		 * A quarter of the permits' acquisitions hold at least a minimum hold, which
		 * their release passes on ({@link SharedKeeps}).
		 */
		PERMIT_KEEP,

		/**
		 * A quarter of the acquisitions are cancelled (reactive) or interrupted
		 * (blocking) while they wait: asleep, or with an attempt in flight.
		 */
		CANCEL,

		/**
		 * An eighth of the writers' acquisitions are tries (a wait of 0): one attempt, no
		 * request filed, no queued mark left on a lock found taken.
		 */
		TRY,

		/**
		 * In half of the runs of thread owners, their locks are reentrant, as the
		 * engine's defaults make them: an acquisition that says its owner holds the lock
		 * (a hold a lost reply may have left) joins a hold of its owner it finds instead
		 * of being refused as a self-deadlock.
		 */
		REENTRANT,

		/**
		 * A quarter of the multi-lock acquisitions of a run of multi-locks
		 * ({@link MultiLockRun}) hold each lock at least a minimum hold. Not in the runs
		 * without faults, where the waits are not measured less the time the locks were
		 * kept.
		 */
		MULTI_KEEP,

		/**
		 * A command runs in Redis, or never reaches it, and its reply never comes: the
		 * client sees a failure after its command timeout ({@link LostReplies}).
		 */
		CUT,

		/**
		 * Half the commands that lose their reply after they ran in Redis run late: 0 to
		 * 40 ms after their client's command timeout, so after its next commands, as a
		 * command on a pool's other connection, or a TCP retransmission, may
		 * ({@link LostReplies}).
		 */
		LATE,

		/**
		 * In a quarter of the runs, Redis fails over once or twice to a replica that lags
		 * by 0, 1 or a few writes ({@link RedisFaults}): what those writes did is lost.
		 */
		FAILOVER,

		/**
		 * In a quarter of the runs, Redis evicts one to three of the keys the scripts
		 * use, as under {@code maxmemory} ({@link RedisFaults}).
		 */
		EVICT,

		/**
		 * In a quarter of the runs, a third of the lines' subscriptions lose their
		 * connection for a while, and what is published meanwhile, then are confirmed
		 * again or fail ({@link SubscriptionGaps}).
		 */
		SUBSCRIPTION,

		/**
		 * In a quarter of the runs of single locks, each grant is counted on only once a
		 * replica has it ({@link SimulatedReplicas}), as with replica acknowledgements.
		 */
		REPLICAS

	}

	/**
	 * An event: {@code deferred} once a stall held it back, so that a later stall keeps
	 * its place among the commands that reached Redis.
	 */
	private record Event(long at, long sequence, String what, Runnable action, boolean needsRedis,
			boolean deferred) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

}
