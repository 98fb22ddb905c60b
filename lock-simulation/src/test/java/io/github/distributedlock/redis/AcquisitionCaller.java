package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.driver.Acquisitions;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.driver.RegisteredHold;
import io.github.distributedlock.redis.driver.ReplicaWait;
import io.github.distributedlock.redis.reactive.AcquisitionMono;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.ReplicaCount;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * A simulated client that starts every acquisition as both templates do: through the
 * driver's {@link Acquisitions} (one lock, or several as one hold), a JVM of its own with
 * the engine's {@link HoldRegistry}, local lines and replica check, over a
 * {@link SimulatedPort} of its own. It subscribes to each call as the reactive template
 * does, through its {@link AcquisitionMono}. It cancels a quarter of its calls at drawn
 * times, and a third of its replica checks while they run: as a blocking caller's
 * interrupt, {@link Acquisitions.Call#cancel} with the cancel's error; or as a reactive
 * subscriber that leaves, disposing of its subscription. Where the template knows no
 * command timeout, a blocking caller interrupted again stops waiting for what is in
 * flight ({@code settleNow}), as {@code CallerWait} does. A grant that reaches a
 * subscriber that left is released, as the reactive template's discard hook releases it.
 * <p>
 * Checked, as {@code Acquisitions} promises:
 * <ul>
 * <li>each call's completion is told at most once, and within the call's wait time plus
 * one command timeout where the template knows that timeout;</li>
 * <li>a cancel that returned {@code true} is followed by the cancel's error (nothing for
 * a subscriber that left), never a grant; no handle of the call is left live in the
 * registry, and what the call won is released, gone from Redis as soon as Redis answers
 * ({@link OrphanedHolds});</li>
 * <li>a cancel that returned {@code false} changes nothing: the call ends as it would
 * have, and a grant reaches the completion;</li>
 * <li>a grant is one live, registered handle for each lock asked, which its holder counts
 * on ({@link HoldChecker}, {@link HoldsInRedis}) until it releases it;</li>
 * <li>a call that ends without its locks leaves no live handle in the registry, and what
 * it won but did not hand over ends as an orphaned hold does; every replica check
 * ends.</li>
 * </ul>
 * Its template may close ({@link #closes}): then a call waiting in a line is told a
 * {@link LockAccessException} promptly, never a grant; the client sends no attempt,
 * renewal or replica count, and keeps no subscription.
 */
final class AcquisitionCaller implements SimulatedPort.Calls {

	// The wait times a call draws: a try, a short wait, the usual 3 s.
	private static final long[] WAITS_MS = { 0, 100, 3_000, 3_000 };

	private final AcquisitionCallRun run;

	private final String name;

	private final String owner;

	private final boolean cluster;

	private final SimulatedPort port;

	// The ports the engine runs on, which the template's close closes: its calls', its
	// lines' and its watchdog's.
	private final ClosablePort calls;

	private final ClosablePort linesPort;

	private final ClosablePort watchdog;

	private final LocalLines lines;

	private final HoldRegistry registry;

	private final Acquisitions<CallHandle> acquisitions;

	private int left;

	private int number;

	// From a call's start until the caller goes on.
	private boolean busy;

	// The call whose end the caller waits for, if any.
	private @Nullable Record current;

	private final List<Record> records = new ArrayList<>();

	// The calls by the ids of the holds they won, and by their attempts.
	private final Map<String, Record> byHold = new HashMap<>();

	private final Map<ScriptCall, Record> attempts = new IdentityHashMap<>();

	// The commands whose reply is lost, or that run after their command timeout.
	private final Map<ScriptCall, Boolean> unanswered = new IdentityHashMap<>();

	// The attempts granted in Redis after their call ended without them, until the
	// client hears of them.
	private final Map<ScriptCall, Record> grantedAfterTheEnd = new IdentityHashMap<>();

	// When the client hears, at the latest, of a command about each hold.
	private final Map<String, Long> heard = new HashMap<>();

	// The handles the caller counts on, until it releases them.
	private final List<CallHandle> holding = new ArrayList<>();

	// The holds whose replica check the caller cancelled: the planted bug's.
	private final Set<String> cancelledChecks = new HashSet<>();

	// Whether a hold of this owner may be in Redis that it does not count on: a reply
	// lost, a call cancelled or ended without its locks. Its next acquisition may then
	// be refused as a self-deadlock.
	private boolean mayHaveLeftAHold;

	// Whether its replica counts are closed, as its template's close closes them.
	private boolean countsClosed;

	// The locks of the replica checks it cancelled, which release them once they end.
	private final Set<String> leftChecks = new HashSet<>();

	// When its template closes, if it does; whether it closed, and when; how many
	// releases are in flight.
	private @Nullable Close close;

	private boolean closed;

	private long closedNanos = -1;

	private int releasing;

	// When the client hears, at the latest, that a release of each hold got no reply: a
	// closed port sends it no more, and the hold ends with its lease.
	private final Map<String, Long> releaseFailures = new HashMap<>();

	AcquisitionCaller(AcquisitionCallRun run, String name, String owner, int calls, boolean cluster) {
		this.run = run;
		this.name = name;
		this.owner = owner;
		this.left = calls;
		this.cluster = cluster;
		this.port = new SimulatedPort(name, run.world(), this);
		this.calls = new ClosablePort(this.port, this::startedAfterClose);
		this.linesPort = new ClosablePort(new SimulatedPort(name + " lines", run.world()), this::startedAfterClose);
		this.watchdog = new ClosablePort(new SimulatedPort(name + " watchdog", run.world()), this::startedAfterClose);
		LocalLines lines = EngineParts.lines(this.linesPort);
		this.lines = lines;
		HoldRegistry registry = new HoldRegistry(this.watchdog, () -> cluster, true, new LockListener() {
		}, lines);
		// The registry hears of the attempts that may set a lease the owner has.
		DriverCommands commands = new DriverCommands(this.calls, Long.parseLong(AcquisitionCallRun.FENCE_IDLE_MS), true,
				registry);
		ReplicaWait replicas = run.replicas() ? new ReplicaWait(checkPort(),
				counting(new SimulatedReplicas(name, this.port, run.world(), run.redis(), run.replicaDraws(), false)),
				true, 1, SimulatedReplicas.TIMEOUT_MS, registry) : null;
		this.acquisitions = new Acquisitions<>(commands, lines, registry, replicas, () -> cluster, true,
				run.knownTimeoutNanos());
		this.registry = this.acquisitions.registry();
	}

	String name() {
		return this.name;
	}

	boolean cluster() {
		return this.cluster;
	}

	boolean done() {
		return this.left <= 0 && !this.busy;
	}

	void start() {
		if (this.closed) {
			// Its template closed: it starts no call.
			this.left = 0;
		}
		if (this.left-- <= 0) {
			this.busy = false;
			return;
		}
		this.busy = true;
		SimulationRandom random = this.run.random();
		long wait = WAITS_MS[random.nextInt(WAITS_MS.length)] * AcquisitionCallRun.MS;
		List<String> keys = new ArrayList<>(AcquisitionCallRun.KEYS);
		int count = (random.nextInt(2) == 0) ? 1 : 2 + random.nextInt(2);
		List<LockSpec> asked = new ArrayList<>();
		while (asked.size() < count) {
			LockSpec spec = this.run.resolve(keys.remove(random.nextInt(keys.size())), Duration.ofNanos(wait));
			asked.add((count > 1) ? LockRequestResolver.multiLockable(spec) : spec);
		}
		List<LockSpec> ordered = MultiAcquisition.inGlobalOrder(asked);
		String path = (count == 1) ? "one"
				: MultiAcquisition.inOneScript(ordered, () -> this.cluster) ? "all at once" : "all in order";
		Record record = new Record(this.name + " call " + ++this.number, this.number, path, asked.get(0).name(),
				ordered.stream().map(LockSpec::lockKey).toList(), this.run.nanos());
		this.records.add(record);
		this.current = record;
		this.run.note(record.tag + " takes " + asked.stream().map((spec) -> spec.name().key()).toList() + " ("
				+ record.path + ", waits " + wait / 1e6 + " ms)");
		Function<Grant, CallHandle> handles = (grant) -> {
			CallHandle handle = new CallHandle(this.registry, grant, record.tag);
			this.byHold.put(grant.hold(), record);
			return handle;
		};
		// The call, as the reactive template subscribes to it: a blocking caller's end
		// comes through the same Mono, which only forwards it.
		Mono<List<CallHandle>> call = (count == 1)
				? AcquisitionMono
					.<CallHandle>of((done) -> started(record,
							this.acquisitions.one(asked.get(0), this.owner, record.startedNanos, this.calls, handles,
									done)))
					.map(List::of)
				: AcquisitionMono.<List<CallHandle>>of((done) -> started(record, this.acquisitions.all(asked.get(0),
						asked, this.owner, record.startedNanos, this.calls, handles, done)));
		long timeout = this.run.knownTimeoutNanos();
		if (timeout >= 0) {
			long bound = wait + timeout;
			this.run.at(bound + 1, record.tag + " is due", () -> {
				if (!record.told && !record.silent) {
					violated(record, "was not told its end within its wait time plus one command timeout ("
							+ bound / 1e6 + " ms)");
				}
			});
		}
		Cancellations.Stop stop = this.run.cancellations().draw();
		if (stop != null) {
			this.run.at(stop.delayNanos(), this.name + " cancels " + record.tag, () -> cancel(record));
		}
		// A third of the replica checks are cancelled while they run.
		record.cancelsItsCheck = random.nextInt(3) == 0;
		record.subscription = call.doOnDiscard(Object.class, (won) -> discarded(record, won)).subscribe((won) -> {
			if (!record.deaf) {
				granted(record, won);
			}
		}, (error) -> {
			if (!record.deaf) {
				failed(record, error);
			}
		});
		if (closesAt(record, Close.Trigger.START)) {
			this.run.at(this.close.delayNanos(), this.name + "'s template closes", this::closeTemplate);
		}
	}

	/**
	 * Draw that the client's template closes, at a time drawn from a call of its.
	 */
	void closes(Close close) {
		this.close = close;
	}

	private boolean closesAt(Record record, Close.Trigger trigger) {
		return this.close != null && this.close.call() == record.number && this.close.trigger() == trigger;
	}

	/**
	 * Close what the template closes below its façade, in its order, with the engine's
	 * own close methods: the blocking template's (the replica counts, the registry and so
	 * its renewals, the watchdog's port, the lines, the port), or the reactive template's
	 * (the lines, the registry, the port, the replica counts). From then on the client
	 * starts no call, and cancels none.
	 */
	private void closeTemplate() {
		if (this.closed) {
			return;
		}
		Close drawn = this.close;
		this.closed = true;
		this.closedNanos = this.run.nanos();
		List<String> states = new ArrayList<>();
		// One call at a time is its caller's: it waits in a line if the lines have a
		// waiter, unless a call whose subscriber left may still be there.
		boolean waiting = this.lines.waiting() > 0;
		boolean othersLeft = this.records.stream().anyMatch((record) -> record.silent && !record.orphaned);
		for (Record record : this.records) {
			if (!record.told && !record.silent) {
				record.underWayAtClose = true;
				record.checkingAtClose = record.checkStarted && !record.checkEnded;
				record.waitingAtClose = waiting && !othersLeft && record == this.current;
				states.add(record.checkingAtClose ? "during a replica check"
						: (record.waitingAtClose ? "waiting in a line" : "during a run") + " (" + record.path + ")");
			}
		}
		if (!this.holding.isEmpty()) {
			states.add("while holding" + (this.run.renewed() ? " renewed locks" : ""));
		}
		if (this.releasing > 0) {
			states.add("while releasing");
		}
		if (states.isEmpty()) {
			states.add("idle");
		}
		states.forEach((state) -> this.run.count("template closes " + state));
		// A release whose failure comes from now on is not sent again: the port closes.
		this.releaseFailures.forEach((hold, heard) -> {
			if (heard - this.closedNanos >= 0) {
				AcquisitionCallRun.KEYS
					.forEach((key) -> this.run.orphans(this.run.spec(key).lockKey()).leftToLease(this.name, hold));
			}
		});
		this.run.note(this.name + "'s template closes (" + (drawn.blocking() ? "blocking" : "reactive") + "): "
				+ String.join(", ", states));
		boolean renewalsStop = this.run.bug() != AcquisitionCallRun.Bug.RENEWS_AFTER_CLOSE;
		if (drawn.blocking()) {
			this.countsClosed = true;
			if (renewalsStop) {
				this.registry.close();
			}
			this.watchdog.close();
			this.lines.close();
			this.calls.close();
			this.linesPort.close();
		}
		else {
			this.lines.close();
			if (renewalsStop) {
				this.registry.close();
			}
			this.calls.close();
			this.linesPort.close();
			this.watchdog.close();
			this.countsClosed = true;
		}
		long prompt = this.run.commandTimeoutNanos() + 2 * 5 * AcquisitionCallRun.MS;
		// A waiter ends at the close, or by its attempt's reply; other calls by their
		// bound.
		this.run.at(prompt + 1, this.name + "'s waiters at the close are due", () -> {
			for (Record record : this.records) {
				if (record.waitingAtClose && record.cancelled != Boolean.TRUE && !record.told && !record.silent) {
					violated(record, "was waiting in a line when its template closed, but was not told its end within "
							+ prompt / 1e6 + " ms (one command timeout and a round trip)");
				}
			}
		});
	}

	/**
	 * A port of the client sends, after the template closed, what a closed template never
	 * starts.
	 */
	private void startedAfterClose(String what) {
		this.run.violated(this.name + " sent " + what + " after its template closed");
	}

	/**
	 * After the close, the client's lines have no subscription left in Redis.
	 */
	void checkClosed(RedisModel redis) {
		if (this.closed && redis.pubSub().listens(this.name + " lines")) {
			this.run.violated(this.name + "'s lines are still subscribed after its template closed");
		}
	}

	private static <G> Acquisitions.Call<?, G> started(Record record, Acquisitions.Call<?, G> call) {
		record.call = call;
		return call;
	}

	/**
	 * Release what reached a subscriber that left, as the reactive template's discard
	 * hook does: a call's handle or handles, not the box Reactor's sink drops.
	 */
	private void discarded(Record record, Object won) {
		List<?> handles = (won instanceof List<?> list) ? list : List.of(won);
		for (Object handle : handles) {
			if (handle instanceof CallHandle dropped) {
				this.run.count("granted to a subscriber that left, released");
				this.run.note(record.tag + "'s grant of " + dropped + " reached its subscriber after it left");
				dropped.hold().releaseUnused(this.calls, Completion.of((result) -> {
				}, (error) -> {
				}));
			}
		}
	}

	/**
	 * Cancel a call the caller still waits for, once, as a blocking caller's interrupt
	 * (with the cancel's error) or a reactive subscriber that leaves ({@code null}).
	 */
	private void cancel(Record record) {
		if (record.cancelled != null || record.silent) {
			return;
		}
		boolean blocking = this.run.random().nextInt(4) != 0;
		Throwable why = blocking ? new LockInterruptedException(record.name, new InterruptedException()) : null;
		if (record.told) {
			// Too late, as a subscriber that leaves while its grant is on its way: the
			// call ended, and its end stands.
			record.cancelled = record.call.cancel(why);
			this.run.count("cancels after the end that returned " + record.cancelled);
			if (record.cancelled) {
				violated(record, "was cancelled after it was told its end, and the cancel returned true");
			}
			return;
		}
		boolean checking = record.checkStarted && !record.checkEnded;
		if (!blocking) {
			leave(record, checking);
			return;
		}
		record.why = why;
		record.cancelling = true;
		boolean stopped = record.call.cancel(why);
		record.cancelling = false;
		record.cancelled = stopped;
		this.run.count(
				"cancels " + (checking ? "during the replica check" : "during the run") + " that returned " + stopped);
		this.run.note(
				record.tag + " interrupted (" + (checking ? "checking" : "running") + "): cancel returned " + stopped);
		if (!stopped) {
			if (record.told && record.error != null && record.error == why) {
				violated(record, "was told its cancel's error, but the cancel returned false");
			}
			settleNowLater(record);
			return;
		}
		this.mayHaveLeftAHold = true;
		if (!checking) {
			// What its run took is released now, or as the reply of an attempt in flight
			// brings it (ran).
			orphaned(record, "its run was cancelled", true);
		}
		else {
			leftCheck(record);
		}
		settleNowLater(record);
	}

	/**
	 * The subscriber leaves, as a reactive one does: it disposes of its subscription,
	 * whose cancel ({@link AcquisitionMono}) cancels the call, and hands what the call
	 * still wins to the discard hook ({@link #discarded}). It hears nothing more, and
	 * goes on.
	 */
	private void leave(Record record, boolean checking) {
		record.silent = true;
		if (this.run.bug() == AcquisitionCallRun.Bug.LEAVES_WITHOUT_CANCEL) {
			record.deaf = true;
		}
		else {
			record.subscription.dispose();
		}
		this.run.count("subscribers that left " + (checking ? "during the replica check" : "during the run"));
		this.run.note(record.tag + " left by its subscriber (" + (checking ? "checking" : "running") + ")");
		this.mayHaveLeftAHold = true;
		if (checking) {
			leftCheck(record);
		}
		else {
			// Not told, the call was still running: the cancel stopped it. What its run
			// took is released now, or as the reply of an attempt in flight brings it
			// (ran).
			record.cancelled = true;
			orphaned(record, "its subscriber left", true);
		}
		ended(record);
		goOn();
	}

	/**
	 * The call was cancelled during its replica check, which releases what it checks once
	 * it ends ({@link #checkEnded}).
	 */
	private void leftCheck(Record record) {
		record.wonHolds.forEach((hold) -> this.cancelledChecks.add(hold[1]));
		this.leftChecks.addAll(record.lockKeys);
	}

	/**
	 * Where the template knows no command timeout, a blocking caller interrupted again
	 * stops waiting for what the call has in flight, as {@code CallerWait} does.
	 */
	private void settleNowLater(Record record) {
		if (this.run.knownTimeoutNanos() >= 0 || this.run.random().nextInt(2) != 0) {
			return;
		}
		this.run.at(this.run.random().between(0, 50 * AcquisitionCallRun.MS),
				this.name + " is interrupted again while " + record.tag + " settles", () -> {
					if (!record.told) {
						this.run.count("settled now");
						record.call.settleNow();
					}
				});
	}

	private void granted(Record record, List<CallHandle> handles) {
		if (told(record)) {
			return;
		}
		if (record.cancelled == Boolean.TRUE) {
			violated(record, "was granted after its cancel returned true");
			return;
		}
		if (record.waitingAtClose) {
			violated(record, "was waiting in a line when its template closed, but was granted");
			return;
		}
		if (record.underWayAtClose) {
			// A check under way ends with its commands, as the closed counts let it; a
			// run not in a line, by its attempt's reply.
			this.run.count("granted after its template closed, "
					+ (record.checkingAtClose ? "its replica check under way" : "its attempt in flight"));
		}
		long now = this.run.nanos();
		List<String> keys = handles.stream().map((handle) -> handle.hold().spec().lockKey()).sorted().toList();
		if (!keys.equals(record.lockKeys)) {
			violated(record, "asked for " + record.lockKeys + ", but was granted " + keys);
			return;
		}
		List<Long> registered = this.registry.snapshot()
			.stream()
			.filter((held) -> held.thread().equals(record.tag))
			.map((held) -> held.fencingToken())
			.toList();
		for (CallHandle handle : handles) {
			String lockKey = handle.hold().spec().lockKey();
			if (!handle.hold().isLive(now) || !registered.contains(handle.grant().token())) {
				violated(record, "was granted " + handle + ", but it is not a live handle of the registry");
				return;
			}
			if (!handle.grant().owner().equals(this.acquisitions.redisOwner(lockKey, this.owner))) {
				violated(record, "was granted " + handle + " of owner " + handle.grant().owner());
				return;
			}
		}
		this.run.count("granted (" + record.path + ")");
		for (CallHandle handle : handles) {
			this.registry.announce(handle);
			handle.countOn(now);
			this.holding.add(handle);
		}
		long work = closesAt(record, Close.Trigger.HOLD) ? this.close.holdNanos() : this.run.work();
		this.run.at(work, this.name + " releases " + record.tag + "'s locks",
				() -> release(handles, handles.size() - 1));
	}

	/**
	 * Release a granted call's locks in reverse order, each once the one before replied,
	 * as a multi-lock's handle does; then go on.
	 */
	private void release(List<CallHandle> handles, int index) {
		if (index < 0) {
			goOn();
			return;
		}
		CallHandle handle = handles.get(index);
		handle.stopCounting(this.run.nanos());
		this.holding.remove(handle);
		this.releasing++;
		handle.hold().release(this.calls, Completion.of((result) -> {
			this.releasing--;
			release(handles, index - 1);
		}, (error) -> {
			this.releasing--;
			release(handles, index - 1);
		}));
	}

	private void failed(Record record, Throwable error) {
		if (told(record)) {
			return;
		}
		record.error = error;
		this.run.note(record.tag + " failed: " + error.getMessage());
		if (record.waitingAtClose && error != record.why && !(error instanceof LockAccessException)) {
			violated(record, "was waiting in a line when its template closed, but was told " + error);
			return;
		}
		if (record.underWayAtClose) {
			String told = (error == record.why) ? "its cancel"
					: String.valueOf(error.getMessage()).contains("shut down") ? "that the lock service is shut down"
							: error.getClass().getSimpleName();
			this.run.count("told " + told + " after its template closed");
		}
		if (error == record.why) {
			if (!record.cancelling && record.cancelled != Boolean.TRUE) {
				violated(record, "was told its cancel's error, but the cancel returned false");
			}
			this.run.count("told its cancel");
		}
		else if (record.cancelled == Boolean.TRUE) {
			violated(record, "was told " + error + " after its cancel returned true");
			return;
		}
		else if (error instanceof LockTimeoutException) {
			this.run.count("timed out (" + record.path + ")");
		}
		else if (error instanceof LockSelfDeadlockException && this.mayHaveLeftAHold) {
			// A hold of its own that it does not count on is still in Redis.
			boolean afterCheck = record.lockKeys.stream().anyMatch(this.leftChecks::contains);
			this.run.count("refused as a self-deadlock" + (afterCheck ? " on a lock whose check it cancelled" : ""));
			if (afterCheck) {
				this.run.found("refused as a self-deadlock on a lock whose check it cancelled", record.tag);
			}
		}
		else if (error instanceof LockAccessException) {
			this.run.count(failure(String.valueOf(error.getMessage())));
		}
		else {
			violated(record, "failed with " + error);
			return;
		}
		this.mayHaveLeftAHold = true;
		ended(record);
		goOn();
	}

	/**
	 * Return what a failure of a call says, for the report.
	 */
	private static String failure(String message) {
		if (message.contains("replicas acknowledged") || message.contains("had ended")) {
			return "refused by its replica check";
		}
		if (message.contains("not confirmed within")) {
			return "ended at its bound during its replica check";
		}
		if (message.contains("too slowly")) {
			return "ended at its bound";
		}
		return message.contains("no reply to its replica check") ? "failed: no reply to its replica check"
				: "failed: " + message.replaceAll("Lock '[^']*': ", "");
	}

	/**
	 * Record that a call is told its end: at most once, and never after a subscriber
	 * left.
	 * @return whether it was told before, which fails the run
	 */
	private boolean told(Record record) {
		if (record.told || record.silent) {
			violated(record, "was told its end " + (record.silent ? "after its subscriber left" : "twice"));
			return true;
		}
		record.told = true;
		if (this.current == record) {
			this.current = null;
		}
		if (closesAt(record, Close.Trigger.HOLD) || closesAt(record, Close.Trigger.END)) {
			this.run.at(this.close.delayNanos(), this.name + "'s template closes", this::closeTemplate);
		}
		this.run.note(record.tag + " is told its end");
		return false;
	}

	/**
	 * A call ended without its locks: no handle of it may be live in the registry, and
	 * what it took but did not hand over must end. A replica check that is still running
	 * releases what it checks once it ends ({@link #checkEnded}).
	 */
	private void ended(Record record) {
		if (this.current == record) {
			this.current = null;
		}
		this.run.at(0, this.name + " looks for " + record.tag + "'s handles", () -> noLiveHandle(record));
		if (!record.checkStarted) {
			orphaned(record, "its call ended without it", true);
		}
	}

	private void noLiveHandle(Record record) {
		boolean left = this.registry.snapshot().stream().anyMatch((held) -> held.thread().equals(record.tag));
		if (left) {
			violated(record, "ended without its locks (cancelled: " + record.cancelled
					+ "), but left a live handle in the registry");
		}
	}

	/**
	 * Watch what a call won but did not hand over: it must end as soon as Redis answers,
	 * counted from when the client hears of the last command about it (an attempt whose
	 * reply a pause holds back, whose grant the driver then releases).
	 */
	private void orphaned(Record record, String why, boolean answered) {
		record.orphaned = true;
		long now = this.run.nanos();
		for (String[] hold : record.wonHolds) {
			long from = Math.max(now, this.heard.getOrDefault(hold[1], now));
			this.run.orphans(hold[0])
				.unconfirmed(this.name, LostState.Kind.WRITER, this.owner, hold[1], record.tag + ": " + why, now, from,
						answered);
		}
	}

	private void goOn() {
		this.run.at(this.run.random().between(0, 20 * AcquisitionCallRun.MS), this.name + " next", this::start);
	}

	/**
	 * Return the count of the replica check, which tells the caller's checks which call
	 * each count is of, when the check starts (a third of the checks are then cancelled
	 * within 150 ms), and when it ends: at the first count that fails or falls short, or
	 * the last lock's.
	 */
	private ReplicaCount counting(ReplicaCount count) {
		return (grant) -> {
			Record record = this.byHold.get(grant.hold());
			if (record == null) {
				// The first count of one lock's grant, or of a multi-lock's taken at
				// once:
				// that of the call whose run just won.
				record = this.current;
				if (record == null) {
					throw new IllegalStateException(this.name + " counts the replicas of " + grant + ", of no call");
				}
				this.byHold.put(grant.hold(), record);
			}
			Record checked = record;
			if (!checked.checkStarted) {
				checked.checkStarted = true;
				if (checked.cancelsItsCheck) {
					this.run.at(this.run.random().between(0, 150 * AcquisitionCallRun.MS),
							this.name + " cancels " + checked.tag + " during its replica check", () -> cancel(checked));
				}
			}
			// Closed, the template's counts refuse a check, as their closed executor
			// does.
			CompletableFuture<Long> counted = this.countsClosed
					? CompletableFuture.failedFuture(
							new LockAccessException(grant.spec().name(), "the lock service is shut down", null))
					: count.acknowledged(grant);
			counted.whenComplete((acked, error) -> {
				boolean last = error != null || acked == null || acked < 1
						|| grant.spec().lockKey().equals(checked.lockKeys.get(checked.lockKeys.size() - 1));
				if (last) {
					this.run.at(0, this.name + "'s replica check of " + checked.tag + " ended",
							() -> checkEnded(checked, error == null));
				}
			});
			return counted;
		};
	}

	/**
	 * A call's replica check ended: unless the caller got what it checked, the check
	 * released it.
	 */
	private void checkEnded(Record record, boolean answered) {
		record.checkEnded = true;
		if (record.told && record.error == null) {
			return;
		}
		this.mayHaveLeftAHold = true;
		orphaned(record, "its replica check ended without a grant to its caller", answered);
	}

	/**
	 * Return the port of the replica check: the client's, but where the planted bug drops
	 * the release of what a cancelled check checked.
	 */
	private LockPort checkPort() {
		if (this.run.bug() != AcquisitionCallRun.Bug.CANCELLED_CHECK_KEEPS_GRANT) {
			return this.calls;
		}
		return SimulatedPort.running(this.calls, (lockName, operation, call, reply) -> {
			if (operation.equals("release") && this.cancelledChecks.contains(OrphanedHolds.holdOf(call))) {
				this.run.note(this.name + "'s release of a hold whose check was cancelled is dropped (planted)");
				return;
			}
			this.calls.run(lockName, operation, call, reply);
		});
	}

	/**
	 * Return whether the caller counts on its hold of a lock: one it holds, or one its
	 * call under way won.
	 */
	boolean countsOn(String lockKey, String hold) {
		Record call = this.current;
		return this.holding.stream()
			.anyMatch((handle) -> handle.grant().hold().equals(hold) && handle.hold().spec().lockKey().equals(lockKey))
				|| (call != null && !call.orphaned
						&& call.wonHolds.stream().anyMatch((won) -> won[0].equals(lockKey) && won[1].equals(hold)));
	}

	/**
	 * Every hold the caller counts on is its owner's in Redis, until its deadline.
	 */
	void checkLiveHolds(RedisModel redis, long now) {
		for (CallHandle handle : this.holding) {
			if (handle.live(now)) {
				String found = HoldsInRedis.writerViolation(redis, handle.hold().spec().lockKey(), this.owner,
						handle.endNanos);
				if (found != null) {
					this.run.violated(this.name + " counts on " + handle + " for another "
							+ (handle.endNanos - now) / 1e6 + " ms, but " + found);
					return;
				}
			}
		}
	}

	/**
	 * The run is over: every call was told its end (but those whose subscriber left),
	 * every replica check ended, and no call that ended without its locks left a live
	 * handle.
	 */
	void finish() {
		if (this.closed) {
			int refused = this.calls.refused() + this.linesPort.refused() + this.watchdog.refused();
			if (refused > 0) {
				this.run.count("timers refused after the close", refused);
			}
		}
		for (Record record : this.records) {
			if (!record.told && !record.silent) {
				violated(record, "was never told its end");
			}
			if (record.checkStarted && !record.checkEnded) {
				violated(record, "started a replica check that never ended");
			}
			if (record.silent || record.error != null) {
				noLiveHandle(record);
			}
		}
	}

	private void violated(Record record, String what) {
		this.run.violated(record.tag + " (" + record.path + ", started at " + AcquisitionCallRun.at(record.startedNanos)
				+ " ms) " + what);
	}

	/**
	 * An attempt is sent: it is the call's under way. A release sent while the call is
	 * under way (a multi-lock taken in order lets go of a lock whose lease ran out, to
	 * take them all again) is of a hold the call no longer counts on: if it gets no
	 * reply, the hold is watched as orphaned from then (seed 5268).
	 */
	@Override
	public boolean sending(String operation, ScriptCall call) {
		if (this.closed && operation.equals("replica check")) {
			startedAfterClose(operation);
		}
		Record record = this.current;
		if (operation.equals("acquire") && record != null) {
			this.attempts.put(call, record);
		}
		if (operation.equals("release") && record != null && !record.told) {
			String hold = OrphanedHolds.holdOf(call);
			record.wonHolds.removeIf((won) -> won[1].equals(hold) && call.keys().contains(won[0]));
		}
		return true;
	}

	/**
	 * An attempt ran in Redis: a grant is what its call won there, whether or not its
	 * caller gets it. One granted after its call ended without it (a cancel that stopped
	 * its run, or its end told while the attempt was in flight) must end at once. Not one
	 * whose reply is lost: {@link OrphanedHolds} watches that one as the guarantees have
	 * it.
	 */
	@Override
	public void ran(String operation, ScriptCall call, Object reply) {
		Record record = this.attempts.get(call);
		if (record == null || this.unanswered.containsKey(call) || !(reply instanceof List<?> result)
				|| !Long.valueOf(1).equals(result.get(0))) {
			return;
		}
		String hold = holdOf(call);
		for (String key : AcquisitionCallRun.KEYS) {
			String lockKey = this.run.spec(key).lockKey();
			if (hold != null && call.keys().contains(lockKey)) {
				record.won(lockKey, hold);
			}
		}
		if (record.cancelled == Boolean.TRUE || record.error != null) {
			// Watched once the client hears of it (hears), and the driver releases it.
			this.grantedAfterTheEnd.put(call, record);
		}
	}

	/**
	 * Return the hold a command is about: one lock's, a multi-lock's, or the one a
	 * replica check writes again.
	 */
	private static @Nullable String holdOf(ScriptCall call) {
		if (call.args() instanceof ScriptArgs.AcquireAll all) {
			return all.hold();
		}
		return (call.args() instanceof ScriptArgs.Extend extend) ? extend.hold() : OrphanedHolds.holdOf(call);
	}

	@Override
	public void ranLate(String operation, ScriptCall call) {
		this.unanswered.put(call, Boolean.TRUE);
	}

	@Override
	public void hears(String operation, ScriptCall call, long atNanos, boolean replies) {
		if (!replies) {
			this.unanswered.put(call, Boolean.TRUE);
		}
		String hold = holdOf(call);
		if (!replies && hold != null && operation.equals("release")) {
			this.releaseFailures.merge(hold, atNanos, Math::max);
		}
		boolean leftToLease = !replies && hold != null && operation.equals("release") && this.closed;
		if (hold != null) {
			this.heard.merge(hold, atNanos, Math::max);
		}
		Record ended = this.grantedAfterTheEnd.remove(call);
		if (ended != null) {
			this.run.count("granted in Redis after its call ended");
			orphaned(ended, "granted in Redis after its call ended without it", true);
		}
		// A script of one lock: the orphans of a multi-lock's script are not watched.
		for (String key : AcquisitionCallRun.KEYS) {
			String lockKey = this.run.spec(key).lockKey();
			if (call.keys().contains(lockKey)) {
				this.run.orphans(lockKey)
					.hears(this.name, LostState.Kind.WRITER, this.owner, operation, operation, call, atNanos, replies);
				if (leftToLease) {
					this.run.orphans(lockKey).leftToLease(this.name, hold);
				}
				return;
			}
		}
	}

	@Override
	public void ended(String operation, @Nullable Object reply, long ranNanos) {
		if (reply == null) {
			this.mayHaveLeftAHold = true;
			return;
		}
		long now = this.run.nanos();
		for (String key : AcquisitionCallRun.KEYS) {
			this.run.orphans(this.run.spec(key).lockKey()).answered(this.name, now);
		}
	}

	/**
	 * When a client's template closes: a delay after the start of one of its calls, after
	 * its end, or after its grant, which its caller then holds for {@code holdNanos}; and
	 * which template's order of closing.
	 */
	record Close(int call, Trigger trigger, long delayNanos, long holdNanos, boolean blocking) {

		enum Trigger {

			START, END, HOLD

		}

	}

	/**
	 * One call: what it asks for, how it went, and what its caller was told.
	 */
	private static final class Record {

		final String tag;

		final int number;

		final String path;

		// The first lock asked, which an interrupt names.
		final LockName name;

		// The locks asked, by key, in the global order.
		final List<String> lockKeys;

		final long startedNanos;

		Acquisitions.Call<?, ?> call;

		// The subscription to the call's Mono, which a subscriber that leaves disposes
		// of.
		Disposable subscription;

		// Whether its subscriber left without disposing of its subscription: the
		// planted bug's, which hears nothing more.
		boolean deaf;

		// The holds it won in Redis ({lock key, hold id}), whether or not its caller
		// gets them.
		final List<String[]> wonHolds = new ArrayList<>();

		boolean told;

		@Nullable Throwable error;

		// What its cancel returned, if it was cancelled; its error; whether the cancel
		// is under way; whether its subscriber left.
		@Nullable Boolean cancelled;

		@Nullable Throwable why;

		boolean cancelling;

		boolean silent;

		boolean cancelsItsCheck;

		boolean checkStarted;

		boolean checkEnded;

		// Whether it was under way when its template closed: in its replica check, or
		// waiting in a line.
		boolean underWayAtClose;

		boolean checkingAtClose;

		boolean waitingAtClose;

		// Whether what it won is watched as orphaned holds.
		boolean orphaned;

		Record(String tag, int number, String path, LockName name, List<String> lockKeys, long startedNanos) {
			this.tag = tag;
			this.number = number;
			this.path = path;
			this.name = name;
			this.lockKeys = lockKeys;
			this.startedNanos = startedNanos;
		}

		void won(String lockKey, String hold) {
			if (this.wonHolds.stream().noneMatch((won) -> won[0].equals(lockKey) && won[1].equals(hold))) {
				this.wonHolds.add(new String[] { lockKey, hold });
			}
		}

	}

	/**
	 * A handle as a template makes one, registered in the client's registry: it reports
	 * its call as its thread, and, once its caller counts on it, feeds what becomes of
	 * its hold to the lock's {@link HoldChecker}.
	 */
	private final class CallHandle extends RegisteredHold implements LockContext {

		// Whether its caller counts on it, and until when (renewals move it).
		private boolean counting;

		private long endNanos;

		private final LockHold.Events events = new LockHold.Events() {

			@Override
			public void replied(LockHold hold, long leaseMillis) {
				long now = AcquisitionCaller.this.run.nanos();
				if (leaseMillis >= 0 && live(now)) {
					CallHandle.this.endNanos = Math.max(CallHandle.this.endNanos, hold.leaseEndNanos());
					checker().extended(AcquisitionCaller.this.name, grant().token(), now, CallHandle.this.endNanos);
				}
			}

			@Override
			public void lost(LockHold hold, boolean goneFromRedis) {
				if (CallHandle.this.counting && !hold.isReleased()) {
					stopCounting(AcquisitionCaller.this.run.nanos());
				}
			}

		};

		CallHandle(HoldRegistry registry, Grant grant, String thread) {
			super(registry, grant, thread);
		}

		void countOn(long now) {
			this.counting = true;
			this.endNanos = hold().leaseEndNanos();
			checker().held(AcquisitionCaller.this.name, AcquisitionCaller.this.owner, grant().token(), now,
					this.endNanos);
		}

		void stopCounting(long now) {
			if (this.counting) {
				this.counting = false;
				checker().released(AcquisitionCaller.this.name, grant().token(), Math.min(now, this.endNanos));
			}
		}

		boolean live(long now) {
			return this.counting && !hold().isReleased() && !hold().isLost() && this.endNanos - now > 0;
		}

		private HoldChecker checker() {
			return AcquisitionCaller.this.run.checker(hold().spec().lockKey());
		}

		@Override
		protected LockHold.Events heard() {
			return this.events;
		}

		@Override
		protected LockContext listenedTo() {
			return this;
		}

		@Override
		public boolean isHeld() {
			return !hold().isReleased() && !hold().isLost();
		}

		@Override
		public String toString() {
			return hold().spec().name().key() + " (token " + grant().token() + ")";
		}

	}

}
