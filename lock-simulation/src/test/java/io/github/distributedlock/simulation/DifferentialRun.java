package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * One seed of the differential test: the same random calls ({@link LockWorkload}) go to a
 * real redis-server and to the model, and every reply, every message published and every
 * key must agree, each call replayed on the model at the times the real server may have
 * run it ({@link CallReplay}): the keys the call named, and every other key either side
 * has (a key the model keeps and Redis lacks fails as much as the other way round). After
 * each call the model takes the real expiries of the keys (they may differ by a tick of
 * the clock, see {@link CallReplay}), so the ticks do not add up; and every key must have
 * reached the model's replica, which lags by one write. At the end every key must agree,
 * and a failover must lose that one write alone.
 * <p>
 * Both run the same Lua, so agreeing does not show that the scripts do what the design
 * says: one rule is also held to what Redis did (and the model, which agreed), whatever
 * the model says. A release that reserves the lock publishes {@code reserved:<request>},
 * whatever the form of the request and whoever else is in line, older engines' chained
 * and quiet requests included ({@code checkRules}). The cases each call was are counted
 * among the outcomes.
 * <p>
 * The keyspace notifications of every key the calls write ({@code del}, {@code expire},
 * {@code expired}) are compared with the calls' other messages, in order
 * ({@link LockWorkload#keyspaceChannels()}). The real server's active expiry is off
 * ({@link RealRedis}), so that a key expires only where a call or the dump after it looks
 * it up: the keys the dump found expired must be those the model has expired by then
 * (within the clock's tick), and the model expires them too, with their events, so that
 * both go on with the same keys. What this leaves out: when the active expiry cycle finds
 * a key, which only {@code SnippetDifferentialTests} holds to the model's
 * {@link RedisModel#expireDue()}, once.
 */
final class DifferentialRun {

	private final RealRedis real;

	private final long seed;

	private final int steps;

	private final @Nullable List<LockWorkload.Step> fixedSteps;

	private final String command;

	private final Map<String, String> shas;

	private final List<String> history = new ArrayList<>();

	private final Map<String, Integer> outcomes = new TreeMap<>();

	private final CallReplay replay = new CallReplay(this::newModel);

	private int messages;

	private final Map<String, Integer> keyspaceEvents = new TreeMap<>();

	DifferentialRun(RealRedis real, Map<String, String> shas, long seed, int steps) {
		this(real, "EVALSHA", shas, seed, steps);
	}

	/**
	 * A run that sends each script with the given command: {@code EVALSHA} with the
	 * scripts' SHA-1s, or {@code FCALL} with their functions' names.
	 */
	DifferentialRun(RealRedis real, String command, Map<String, String> names, long seed, int steps) {
		this.real = real;
		this.command = command;
		this.shas = names;
		this.seed = seed;
		this.steps = steps;
		this.fixedSteps = null;
	}

	/**
	 * A run of given calls instead of a seed's random ones, for a test of the run itself.
	 */
	DifferentialRun(RealRedis real, Map<String, String> shas, List<LockWorkload.Step> steps) {
		this.real = real;
		this.command = "EVALSHA";
		this.shas = shas;
		this.seed = 0;
		this.steps = steps.size();
		this.fixedSteps = List.copyOf(steps);
	}

	/**
	 * Run the seed.
	 * @throws AssertionError naming the seed, the calls and the difference
	 */
	void run() throws InterruptedException {
		this.real.flushAll();
		RedisModel model = newModel(this.real.micros() * 1000);
		LockWorkload workload = new LockWorkload(new SimulationRandom(this.seed));
		for (int i = 1; i <= this.steps; i++) {
			LockWorkload.Step step = (this.fixedSteps != null) ? this.fixedSteps.get(i - 1) : workload.next();
			if (step.isPause()) {
				Thread.sleep(step.pauseMillis());
				this.history.add("#" + i + " " + step);
				continue;
			}
			List<String> lineBefore = lineOf(model, step);
			RealRedis.Observation observed = this.real.call(realCall(step), dumpKeys(step));
			CallReplay.Result result = this.replay.replay(model, step, observed);
			if (!result.differences().isEmpty()) {
				throw new AssertionError(report(i, step, observed, result));
			}
			for (String rule : checkRules(step, lineBefore, observed)) {
				if (rule.startsWith("!")) {
					throw new AssertionError(header() + "Call #" + i + " (" + step + ") broke a rule the model and "
							+ "Redis agree on: " + rule.substring(1) + "\n" + steps());
				}
				this.outcomes.merge(rule, 1, Integer::sum);
			}
			model = result.model();
			alignExpiries(model, observed);
			expireAsTheDumpDid(model, observed, step, i);
			countKeyspaceEvents(observed);
			checkReplica(model, step, i);
			this.history.add("#" + i + " " + step + " -> " + Replies.describe(result.reply()));
			this.outcomes.merge(outcome(step, result.reply()), 1, Integer::sum);
			this.messages += observed.messages().size();
			workload.replied(step, result.reply());
		}
		compareAll(model);
		checkFailover(model);
	}

	/**
	 * Return a model as the run needs it: its replica one write behind, and a subscriber
	 * on the channels of the locks.
	 */
	private RedisModel newModel(long startNanos) {
		RedisModel model = new RedisModel(new VirtualClock(startNanos));
		model.replicaLag(1);
		model.keyspaceEvents(true);
		List<String> channels = new ArrayList<>(LockWorkload.channels());
		channels.addAll(LockWorkload.keyspaceChannels());
		model.pubSub().subscribe("waiters", channels.toArray(new String[0]));
		return model;
	}

	/**
	 * The dump after a call looked its keys up, and expired those it found expired (its
	 * script's clock is at most a millisecond before the time it read): each must be
	 * expired in the model by then, within the bracket's width, and each the model has
	 * expired a millisecond and more before it must be among them. The model then expires
	 * them too, with their events, in the dump's order, and the events must be those the
	 * dump published.
	 * <p>
	 * Which keys the dump expired is read from what it found, not from its events: it
	 * found none of them, while the model still holds them. Their events say it only for
	 * the keys whose channels the run hears ({@link LockWorkload#keyspaceChannels()}).
	 */
	private void expireAsTheDumpDid(RedisModel model, RealRedis.Observation observed, LockWorkload.Step step,
			int index) {
		long dumpMs = observed.dumpMicros() / 1000;
		long width = observed.after() / 1000 - observed.before() / 1000;
		for (String message : observed.dumpMessages()) {
			int space = message.lastIndexOf(' ');
			String channel = message.substring(0, space);
			if (!message.endsWith(" expired") || !channel.startsWith("__keyspace@0__:")) {
				throw new AssertionError(header() + "The dump after call #" + index + " (" + step + ") published "
						+ message + ", which only an expiry should\n" + steps());
			}
		}
		List<String> differences = new ArrayList<>();
		// A key named twice (acquire-all.lua's fencing counter) is dumped, and expired,
		// once.
		for (String key : new java.util.LinkedHashSet<>(dumpKeys(step))) {
			Keyspace.Entry entry = model.keyspace().peek(key);
			long expireAt = (entry != null) ? entry.expireAt : Keyspace.NO_EXPIRY;
			boolean expired = expireAt != Keyspace.NO_EXPIRY && expireAt < dumpMs + width;
			boolean surely = expireAt != Keyspace.NO_EXPIRY && expireAt < dumpMs - 1 - width;
			boolean gone = entry != null && observed.keys().get(key) == null;
			if (gone ? !expired : surely) {
				differences.add(key + " (the model's expiry " + expireAt + ", the dump at " + dumpMs + " ms, "
						+ (gone ? "which found it gone)" : "which found it there)"));
			}
			if (gone) {
				model.expireFound(key);
			}
		}
		List<String> messages = new ArrayList<>();
		model.pubSub().drain().forEach((delivery) -> messages.add(delivery.channel() + " " + delivery.message()));
		if (!differences.isEmpty() || !messages.equals(observed.dumpMessages())) {
			throw new AssertionError(
					header() + "After call #" + index + " (" + step + ") the dump expired " + observed.dumpMessages()
							+ ", the model " + messages + "; differing: " + differences + "\n" + steps());
		}
	}

	private void countKeyspaceEvents(RealRedis.Observation observed) {
		List<String> all = new ArrayList<>(observed.messages());
		all.addAll(observed.dumpMessages());
		for (String message : all) {
			if (message.startsWith("__keyspace@")) {
				this.keyspaceEvents.merge(message.substring(message.lastIndexOf(' ') + 1), 1, Integer::sum);
			}
		}
	}

	/**
	 * Return how many keyspace events of each name the calls and dumps published, each
	 * compared with the model's.
	 */
	Map<String, Integer> keyspaceEvents() {
		return this.keyspaceEvents;
	}

	/**
	 * Return what the calls did: how many of each script's replies began with each
	 * status.
	 */
	Map<String, Integer> outcomes() {
		return this.outcomes;
	}

	/**
	 * Return how many messages the calls published.
	 */
	int messages() {
		return this.messages;
	}

	/**
	 * Return how many calls the model ran again at another time of the bracket.
	 */
	int replays() {
		return this.replay.replays();
	}

	/**
	 * Return the line of requests a release will read, as the model has it before the
	 * call; empty for any other call.
	 */
	private static List<String> lineOf(RedisModel model, LockWorkload.Step step) {
		String requests = requestsKey(step);
		if (requests == null) {
			return List.of();
		}
		KeyState line = KeyState.of(model.keyspace().peek(requests), model.clock().millis());
		List<String> members = new ArrayList<>();
		if (line != null && line.type().equals("zset")) {
			for (int i = 0; i < line.contents().size(); i += 2) {
				members.add(line.contents().get(i));
			}
		}
		return members;
	}

	private static @Nullable String requestsKey(LockWorkload.Step step) {
		return "release.lua".equals(step.script()) ? step.keys().get(2) : null;
	}

	/**
	 * Hold what Redis did (and the model, which agreed) to the rule of
	 * docs/design/waiting-and-hand-off.md ("Rolling upgrade"), where the call is one it
	 * is about: a release that reserved the lock for a request of the line publishes
	 * {@code reserved:<request>} on the lock's channel, whatever the request's form (this
	 * engine's {@code <claim>:<id>}, or an older engine's chained {@code <claim>:c:<id>}
	 * or quiet {@code <claim>:q:<id>}) and whatever is left behind it.
	 * @return none if the call is none of those (or a key expired between the call and
	 * the dump, which leaves the state after it unknown), the kinds of case it was, or
	 * {@code "!"} and what broke
	 */
	private static List<String> checkRules(LockWorkload.Step step, List<String> lineBefore,
			RealRedis.Observation observed) {
		if (step.script() == null || !observed.dumpMessages().isEmpty()) {
			return List.of();
		}
		String requests = requestsKey(step);
		if (requests == null) {
			return List.of();
		}
		String lock = step.keys().get(0);
		String channel = step.keys().get(1);
		KeyState after = observed.keys().get(lock);
		String reserved = (after != null) ? field(after, "reserved") : null;
		if (reserved == null || reserved.isEmpty() || !lineBefore.contains(reserved)) {
			// Not reserved by this call (a release that ran before found it made).
			return List.of();
		}
		List<String> left = new ArrayList<>();
		KeyState line = observed.keys().get(requests);
		if (line != null) {
			for (int i = 0; i < line.contents().size(); i += 2) {
				left.add(line.contents().get(i));
			}
		}
		if (!observed.messages().contains(channel + " reserved:" + reserved)) {
			return List.of("!reserved " + reserved + " with " + left + " left in line, and did not publish "
					+ "reserved:; messages " + observed.messages());
		}
		String form = reserved.matches("[0-9]+:q:.*") ? "an older quiet request"
				: reserved.matches("[0-9]+:c:.*") ? "an older chained request" : "a request";
		List<String> kinds = new ArrayList<>(
				List.of("reserved for " + form + ", " + (left.isEmpty() ? "alone" : "others behind") + ": told"));
		if (left.stream().anyMatch((member) -> !member.matches("[1-9][0-9]{0,11}:.*"))) {
			// A member pass_on would drop where it is first, left behind the first.
			kinds.add("reserved, another form behind: told");
		}
		return kinds;
	}

	private static @Nullable String field(KeyState hash, String name) {
		if (!hash.type().equals("hash")) {
			return null;
		}
		for (int i = 0; i + 1 < hash.contents().size(); i += 2) {
			if (hash.contents().get(i).equals(name)) {
				return hash.contents().get(i + 1);
			}
		}
		return null;
	}

	private static String outcome(LockWorkload.Step step, @Nullable Object reply) {
		String name = (step.script() != null) ? step.script() : step.keys().get(0);
		Object status = (reply instanceof List<?> items && !items.isEmpty()) ? items.get(0) : reply;
		if (status instanceof String text && !text.startsWith("-")) {
			status = "text";
		}
		String block = "";
		if ("acquire.lua".equals(name) && reply instanceof List<?> items && items.size() == 3
				&& Long.valueOf(1).equals(CallReplay.normalize(status))) {
			// A new hold that asked for a block of tokens (docs/design/cohorting.md, rule
			// 2).
			block = Long.valueOf(1).equals(CallReplay.normalize(items.get(2))) ? ", a block of one" : ", a block";
		}
		return name + " " + Replies.describe(CallReplay.normalize(status)) + block;
	}

	/**
	 * Check that every key the call named reached the replica as the model has it.
	 */
	private void checkReplica(RedisModel model, LockWorkload.Step step, int index) {
		Keyspace replica = model.replicaCaughtUp();
		long now = model.clock().millis();
		for (String key : dumpKeys(step)) {
			KeyState master = KeyState.of(model.keyspace().peek(key), now);
			KeyState copy = KeyState.of(replica.peek(key), now);
			if (!Objects.equals(master, copy)) {
				throw new AssertionError(header() + "After call #" + index + " (" + step + ") the replica has " + key
						+ " as " + copy + ", the model as " + master + ": a write did not reach it\n" + steps());
			}
		}
	}

	private static void alignExpiries(RedisModel model, RealRedis.Observation observed) {
		observed.keys().forEach((key, state) -> {
			if (state != null) {
				model.alignExpiry(key, state.expireAt());
			}
		});
		// A key a script writes without naming it.
		Map<String, KeyState> others = observed.others();
		if (others != null) {
			others.forEach((key, state) -> model.alignExpiry(key, state.expireAt()));
		}
	}

	/**
	 * Compare every key at the end: the keys of the real server against the model's.
	 */
	private void compareAll(RedisModel model) {
		RealRedis.Dump dump = this.real.dumpAll();
		Set<String> keys = new TreeSet<>(dump.keys().keySet());
		keys.addAll(model.keyspace().keys(model.clock().millis()));
		List<String> differences = new ArrayList<>();
		for (String key : keys) {
			KeyState mine = KeyState.of(model.keyspace().peek(key), model.clock().millis());
			String difference = CallReplay.compare(key, mine, dump.keys().get(key), 0, dump.micros() / 1000);
			if (difference != null) {
				differences.add(difference);
			}
		}
		if (!differences.isEmpty()) {
			throw new AssertionError(header() + "After the last call the keys differ:\n  "
					+ String.join("\n  ", differences) + "\n" + steps());
		}
	}

	/**
	 * Fail over to the replica, which lagged by one write all along: after one more
	 * write, it must hold every key as the model had it before that write, or a write did
	 * not reach it.
	 */
	private void checkFailover(RedisModel model) {
		long now = model.clock().millis();
		Map<String, KeyState> before = states(model, now);
		model.command("SET", "sim:last-write", "lost in the failover");
		int lost = model.failover();
		Map<String, KeyState> after = states(model, now);
		if (lost != 1 || !before.equals(after)) {
			throw new AssertionError(header() + "A failover to a replica one write behind lost " + lost
					+ " writes, or the keys differ:\n  before " + before + "\n  after  " + after + "\n" + steps());
		}
	}

	private static Map<String, KeyState> states(RedisModel model, long now) {
		Map<String, KeyState> states = new TreeMap<>();
		for (String key : model.keyspace().keys(now)) {
			states.put(key, KeyState.of(model.keyspace().peek(key), now));
		}
		return states;
	}

	private List<String> realCall(LockWorkload.Step step) {
		if (step.script() == null) {
			return step.keys();
		}
		List<String> call = new ArrayList<>(
				List.of(this.command, this.shas.get(step.script()), Integer.toString(step.keys().size())));
		call.addAll(step.keys());
		call.addAll(step.args());
		return call;
	}

	private static List<String> dumpKeys(LockWorkload.Step step) {
		return (step.script() != null) ? step.keys() : List.of(step.keys().get(1));
	}

	private String report(int index, LockWorkload.Step step, RealRedis.Observation observed,
			CallReplay.Result closest) {
		return header() + "The model and Redis differ at call #" + index + ": " + step + "\n  Redis ran it between "
				+ observed.before() + " and " + observed.after()
				+ " us; at the time that agreed best, the model's reply was "
				+ Replies.describe(CallReplay.normalize(closest.reply())) + " and:\n  "
				+ String.join("\n  ", closest.differences()) + "\n" + steps();
	}

	private String header() {
		if (this.fixedSteps != null) {
			return "Given calls. ";
		}
		return "Seed " + this.seed + " (replay with -Dsimulation.seed=" + this.seed + "). ";
	}

	private String steps() {
		return "Calls before it:\n  " + String.join("\n  ", this.history);
	}

}
