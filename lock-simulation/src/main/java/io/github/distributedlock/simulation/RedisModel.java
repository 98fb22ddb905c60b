package io.github.distributedlock.simulation;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;

import org.jspecify.annotations.Nullable;

/**
 * A model of one Redis 7.0 server, single-threaded and deterministic, for the commands
 * the lock engine sends: it runs the engine's own Lua scripts
 * ({@link #eval(String, List, List)}) and its plain commands ({@link #command}), with
 * time taken from a {@link VirtualClock}. A script runs whole before anything else (its
 * atomicity), and every command inside it reads the clock as Redis does
 * ({@link ExpiryRule}).
 * <p>
 * The ways Redis misbehaves are operations: {@link #stall(Duration)} (nothing answers
 * until the clock has passed it), {@link #failover()} (a replica that lags by
 * {@link #replicaLag(int)} writes takes over, and those writes are lost),
 * {@link #evict(String)} (a key goes, as under {@code maxmemory}). Pub/sub messages wait
 * in {@link #pubSub()} until the simulation delivers them.
 * <p>
 * Keyspace notifications are off unless {@link #keyspaceEvents(boolean)} turns them on,
 * as {@code notify-keyspace-events Kgx} does: then the commands publish, on
 * {@code __keyspace@0__:<key>}, {@code del} (a key deleted, or a hash or sorted set
 * emptied), {@code expire} (an expiry set) and {@code expired}, when a command finds the
 * key expired (lazy expiry) or when {@link #expireDue()} runs, Redis's active expiry
 * cycle, at the times the simulation chooses. {@code evicted} is of the {@code e} class,
 * which {@code Kgx} leaves out: {@link #evict(String)} publishes nothing.
 * <p>
 * Not modelled: other commands, databases, other notification classes, memory,
 * persistence, Cluster, and the wording of Lua's own runtime errors. Replies are
 * {@link Long}, {@link String} (bulk), {@code null}, {@code List},
 * {@link Replies.StatusReply} and {@link Replies.ErrorReply}.
 */
public final class RedisModel {

	private static final CommandTable COMMANDS = CommandTable.standard();

	private final VirtualClock clock;

	private final PubSub pubSub = new PubSub();

	private final CommandContext context;

	private final ScriptRuntime scripts;

	private final java.util.Map<String, ScriptRuntime.CompiledScript> replacedScripts = new java.util.HashMap<>();

	private Replica replica = new Replica();

	private long scriptCommandNanos;

	private @Nullable IntConsumer afterScriptCommand;

	private int scriptCommands;

	private long stalledUntil = Long.MIN_VALUE;

	private int failovers;

	/**
	 * Create an empty server.
	 * @param clock the clock it reads, which only the simulation moves
	 */
	public RedisModel(VirtualClock clock) {
		this.clock = clock;
		this.context = new CommandContext(clock, this.pubSub);
		this.scripts = new ScriptRuntime(this::callFromScript);
	}

	/**
	 * Run one of the engine's scripts, as {@code EVALSHA} of the text the engine sends.
	 * @param scriptName the script's resource name, such as {@code acquire.lua}
	 * @param keys its {@code KEYS}
	 * @param args its {@code ARGV}
	 * @return the reply; an {@link Replies.ErrorReply} if the script failed (its writes
	 * until then stay, as in Redis)
	 * @throws IllegalStateException while the server is stalled
	 */
	public @Nullable Object eval(String scriptName, List<String> keys, List<String> args) {
		ScriptRuntime.CompiledScript replaced = this.replacedScripts.get(scriptName);
		return run((replaced != null) ? replaced : EngineScripts.get(scriptName), keys, args);
	}

	/**
	 * Run this text from now on where the engine's script of that name would run: a bug
	 * planted to show that the simulation finds it.
	 * @param scriptName the script's resource name, such as {@code release.lua}
	 * @param text the whole text to run instead (library functions included)
	 */
	public void replaceScript(String scriptName, String text) {
		this.replacedScripts.put(scriptName, ScriptRuntime.compile(scriptName, text));
	}

	/**
	 * Run any script text, as {@code EVAL} does.
	 */
	@Nullable Object evalText(String text, List<String> keys, List<String> args) {
		return run(ScriptRuntime.compile("script", text), keys, args);
	}

	/**
	 * Run one command, as a client sends it.
	 * @param argv the command's name and arguments
	 * @return the reply
	 * @throws IllegalStateException while the server is stalled
	 */
	public @Nullable Object command(String... argv) {
		checkAnswering();
		Object reply;
		try {
			reply = COMMANDS.run(this.context, argv, false);
		}
		catch (CommandError ex) {
			reply = new Replies.ErrorReply(ex.reply());
		}
		this.replica.record(this.context.keyspace());
		return reply;
	}

	/**
	 * Run a command that reads, as the simulation's own look at the state rather than a
	 * client's call: an expired key is absent but stays stored, so that it publishes no
	 * {@code expired} event that no client caused, and expires as it would have. It may
	 * look while the server is stalled: the state is then what the stall froze.
	 * @param argv the command's name and arguments
	 * @return the reply
	 */
	public @Nullable Object inspect(String... argv) {
		this.context.inspecting(true);
		try {
			if (answering()) {
				return command(argv);
			}
			try {
				return COMMANDS.run(this.context, argv, false);
			}
			catch (CommandError ex) {
				return new Replies.ErrorReply(ex.reply());
			}
		}
		finally {
			this.context.inspecting(false);
		}
	}

	/**
	 * Publish keyspace notifications of the {@code g} and {@code x} classes on the
	 * keyspace channels, or stop ({@code notify-keyspace-events Kgx}, or empty).
	 * @param on whether to publish them; off unless set
	 */
	public void keyspaceEvents(boolean on) {
		this.context.keyspaceEvents(on);
	}

	/**
	 * Run Redis's active expiry: delete every key whose time has passed, each with an
	 * {@code expired} event, in the order of their names. Redis runs it ten times a
	 * second ({@code hz 10}) and samples 20 keys with an expiry each time, so with the
	 * few keys of one lock it finds them all; when it runs is the simulation's choice.
	 * @return how many keys expired
	 * @throws IllegalStateException while the server is stalled
	 */
	public int expireDue() {
		checkAnswering();
		List<String> expired = this.context.keyspace().expired(this.clock.millis());
		for (String key : expired) {
			this.context.keyspace().delete(key);
			this.context.notify("expired", key);
		}
		this.replica.record(this.context.keyspace());
		return expired.size();
	}

	/**
	 * Expire a key that a look-up found expired, with its event, for a test that keeps
	 * the model's keys on those of a real server whose look-ups it did not replay.
	 */
	void expireFound(String key) {
		this.context.keyspace().delete(key);
		this.context.notify("expired", key);
		this.replica.record(this.context.keyspace());
	}

	private @Nullable Object run(ScriptRuntime.CompiledScript script, List<String> keys, List<String> args) {
		checkAnswering();
		this.context.startScript();
		this.scriptCommands = 0;
		IntConsumer hook = this.afterScriptCommand;
		if (hook != null) {
			hook.accept(0);
		}
		try {
			return this.scripts.run(script, keys, args);
		}
		finally {
			this.context.endScript();
			this.replica.record(this.context.keyspace());
		}
	}

	private @Nullable Object callFromScript(String[] argv) {
		try {
			return COMMANDS.run(this.context, argv, true);
		}
		finally {
			if (this.scriptCommandNanos > 0) {
				this.clock.advanceNanos(this.scriptCommandNanos);
			}
			this.scriptCommands++;
			IntConsumer hook = this.afterScriptCommand;
			if (hook != null) {
				hook.accept(this.scriptCommands);
			}
		}
	}

	/**
	 * Return the pub/sub channels, where published messages wait to be delivered.
	 * @return the channels
	 */
	public PubSub pubSub() {
		return this.pubSub;
	}

	/**
	 * Return the clock this server reads.
	 * @return the clock
	 */
	public VirtualClock clock() {
		return this.clock;
	}

	/**
	 * Choose the Redis version's rule for the time commands in a script read.
	 * @param rule the rule; {@link ExpiryRule#REDIS_7_0} unless set
	 */
	public void expiryRule(ExpiryRule rule) {
		this.context.expiryRule(rule);
	}

	/**
	 * Let each command inside a script take time, so that a script takes time too.
	 * @param nanos how far each command moves the clock; 0 (the default) freezes time
	 * during a script
	 */
	public void scriptCommandNanos(long nanos) {
		if (nanos < 0) {
			throw new IllegalArgumentException("A command takes zero or more time, not " + nanos + " ns");
		}
		this.scriptCommandNanos = nanos;
	}

	/**
	 * Run code after each command a script calls, for a simulation or a test that moves
	 * the clock during a script its own way.
	 * @param hook given how many commands the script has run: 0 as it starts (after the
	 * time keys expire by is taken), then 1, 2, ...; {@code null} for none
	 */
	void afterScriptCommand(@Nullable IntConsumer hook) {
		this.afterScriptCommand = hook;
	}

	/**
	 * Stall the server: from now until the clock has moved by {@code duration}, nothing
	 * answers. The simulation holds the calls that arrive meanwhile, and runs them after.
	 * @param duration how long
	 */
	public void stall(Duration duration) {
		this.stalledUntil = Math.max(this.stalledUntil, Math.addExact(this.clock.nanos(), duration.toNanos()));
	}

	/**
	 * Return whether the server answers now, or is stalled.
	 * @return whether it answers
	 */
	public boolean answering() {
		return this.clock.nanos() >= this.stalledUntil;
	}

	/**
	 * Return when a stall ends.
	 * @return the time in nanoseconds, in the past if the server answers
	 */
	public long stalledUntil() {
		return this.stalledUntil;
	}

	/**
	 * Set how many of the newest writes the replica lacks, which a failover loses.
	 * @param writes the lag in writes (commands or scripts that changed keys); 0 (the
	 * default) loses none
	 */
	public void replicaLag(int writes) {
		this.replica.lag(writes, this.context.keyspace());
	}

	/**
	 * Fail over to the replica: its keys become the server's, and the writes it lacked
	 * are lost. Subscriptions and messages in flight are left to the simulation, which
	 * decides what the failover does to its connections.
	 * @return how many writes were lost
	 */
	public int failover() {
		this.failovers++;
		return this.replica.promoteInto(this.context.keyspace());
	}

	/**
	 * Return how many failovers there were: a connection made before the last one is
	 * gone.
	 */
	public int failovers() {
		return this.failovers;
	}

	/**
	 * Let the replica apply every write it lacks, as Redis has it do for a {@code WAIT}
	 * it acknowledges; it lags again by as many writes as set as newer ones come.
	 */
	public void replicaCatchUp() {
		this.replica.catchUpAll();
	}

	/**
	 * Return how many writes (commands or scripts that changed keys) the server made.
	 */
	public long writes() {
		return this.replica.shipped();
	}

	/**
	 * Return how many of the server's {@link #writes()} the replica has: a {@code WAIT}
	 * after the first {@code n} is acknowledged once this is {@code n} or more.
	 */
	public long replicated() {
		return this.replica.shipped() - this.replica.behind();
	}

	/**
	 * Evict a key, as {@code maxmemory} does; the replica loses it too.
	 * @param key the key
	 * @return whether it was there
	 */
	public boolean evict(String key) {
		boolean present = this.context.lookup(key) != null;
		if (present) {
			this.context.keyspace().delete(key);
		}
		this.replica.record(this.context.keyspace());
		return present;
	}

	/**
	 * Return the keys that exist now, sorted.
	 * @return the keys
	 */
	public Set<String> keys() {
		return this.context.keyspace().keys(this.clock.millis());
	}

	/**
	 * Return the keys as stored, expired ones included, for tests that compare them.
	 */
	Keyspace keyspace() {
		return this.context.keyspace();
	}

	/**
	 * Return the keys the replica will hold once it has every write, for tests that check
	 * that each write reached it; the master's own keys if it lags by nothing.
	 */
	Keyspace replicaCaughtUp() {
		Keyspace keys = this.replica.caughtUp();
		return (keys != null) ? keys : this.context.keyspace();
	}

	/**
	 * Set when a key expires, for a test that keeps the model's expiries on those of a
	 * real server, whose clock ticks during a script.
	 */
	void alignExpiry(String key, long expireAt) {
		Keyspace.Entry entry = this.context.keyspace().peek(key);
		if (entry != null && entry.expireAt != expireAt) {
			entry.expireAt = expireAt;
			this.context.keyspace().written(key);
			this.replica.record(this.context.keyspace());
		}
	}

	/**
	 * Capture the keys, the replica and the messages in flight, to go back to.
	 */
	Snapshot snapshot() {
		return new Snapshot(this.context.keyspace().copy(), this.replica.copy(), this.pubSub.inFlight());
	}

	/**
	 * Go back to a snapshot; messages published since are dropped.
	 */
	void restore(Snapshot snapshot) {
		this.context.keyspace().replaceWith(snapshot.keyspace());
		this.context.keyspace().forgetWrites();
		this.replica = snapshot.replica().copy();
		this.pubSub.truncate(snapshot.inFlight());
	}

	private void checkAnswering() {
		if (!answering()) {
			throw new IllegalStateException("Redis is stalled until " + this.stalledUntil + " ns, and it is "
					+ this.clock.nanos() + " ns: the simulation holds calls until then");
		}
	}

	/**
	 * A model's state at one time.
	 *
	 * @param keyspace the keys
	 * @param replica the replica
	 * @param inFlight how many messages were in flight
	 */
	record Snapshot(Keyspace keyspace, Replica replica, int inFlight) {
	}

}
