package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.LongFunction;

import io.github.distributedlock.test.RedisCommandException;
import org.jspecify.annotations.Nullable;

/**
 * Runs on the model one call that a real redis-server ran, at a time the real server may
 * have run it, and says how the two differ.
 * <p>
 * The real call is bracketed by two {@code TIME} readings {@code [before, after]} (µs).
 * Only a few times in the bracket can behave differently: its start, each millisecond
 * boundary in it, and the microsecond a token that {@code next_token} took from the clock
 * shows (the time the script read). The model tries those, earliest first, and the first
 * that agrees in everything is taken. Failing that, the millisecond may have ticked
 * during the script, between two of its commands, which no single time explains: the
 * model then runs the script from each of those times, on a new model with the state from
 * before the call, with its clock moved to the boundary (or to a token after it) as it
 * starts (after the time keys expire by is taken), or after its first, second, ...
 * command. A call that nothing in its bracket explains is a difference.
 * <p>
 * Two things the bracket cannot pin down are compared within its width in milliseconds (0
 * unless it crossed a boundary): a remaining lease that a reply carries, and the expiry
 * of a key, since Redis 7.0 counts relative expiries and {@code PTTL} from its running
 * clock ({@code mstime()}), which may tick between the script's {@code TIME} and its
 * {@code PEXPIRE}. A key whose expiry falls between the call and the dump that reads it
 * may be gone from the dump alone.
 */
final class CallReplay {

	/**
	 * The most commands of a script after which the clock is tried to tick.
	 */
	private static final int TICK_POINTS = 40;

	private final LongFunction<RedisModel> newModel;

	private int replays;

	/**
	 * @param newModel makes a model whose clock starts at the given time (ns), for a
	 * replay that needs its clock earlier than the current model's
	 */
	CallReplay(LongFunction<RedisModel> newModel) {
		this.newModel = newModel;
	}

	/**
	 * Return how many times a call was run again at another time.
	 */
	int replays() {
		return this.replays;
	}

	/**
	 * Run a call on the model as the real server ran it.
	 * @return the model (a new one if the call needed a clock that ticks during it), its
	 * reply, and the differences of the run that came closest (none if it agrees)
	 */
	Result replay(RedisModel model, LockWorkload.Step step, RealRedis.Observation observed) {
		RedisModel.Snapshot before = model.snapshot();
		Result closest = null;
		boolean first = true;
		for (long micros : candidates(observed)) {
			if (!first) {
				model.restore(before);
				this.replays++;
			}
			first = false;
			model.clock().advanceTo(micros * 1000);
			Result result = run(model, step, observed);
			if (result.differences().isEmpty()) {
				return result;
			}
			closest = closer(closest, result);
		}
		if (step.script() == null) {
			return closest;
		}
		for (long[] tick : ticks(observed)) {
			for (int after = 0; after <= TICK_POINTS; after++) {
				RedisModel fresh = this.newModel.apply(tick[0] * 1000);
				fresh.restore(before);
				int tickAfter = after;
				fresh.afterScriptCommand((command) -> {
					if (command == tickAfter) {
						fresh.clock().advanceTo(tick[1] * 1000);
					}
				});
				this.replays++;
				Result result = run(fresh, step, observed);
				fresh.afterScriptCommand(null);
				if (result.differences().isEmpty()) {
					return result;
				}
			}
		}
		return closest;
	}

	private static Result closer(@Nullable Result closest, Result result) {
		return (closest == null || result.differences().size() < closest.differences().size()) ? result : closest;
	}

	private static Result run(RedisModel model, LockWorkload.Step step, RealRedis.Observation observed) {
		Object reply = (step.script() != null) ? model.eval(step.script(), step.keys(), step.args())
				: model.command(step.keys().toArray(new String[0]));
		List<String> messages = new ArrayList<>();
		model.pubSub().drain().forEach((delivery) -> messages.add(delivery.channel() + " " + delivery.message()));
		return new Result(model, reply, differences(model, step, reply, messages, observed));
	}

	/**
	 * Return the times the call may have run at that can make a difference, earliest
	 * first.
	 */
	private static Set<Long> candidates(RealRedis.Observation observed) {
		Set<Long> candidates = new TreeSet<>(tokens(observed));
		candidates.add(observed.before());
		for (long ms = observed.before() / 1000 + 1; ms <= observed.after() / 1000; ms++) {
			candidates.add(ms * 1000);
		}
		return candidates;
	}

	/**
	 * Return the ways the millisecond may have ticked during the call: a start before a
	 * boundary (the bracket's start, or a token before the boundary) and the time the
	 * clock moves to (the boundary, or a token after it).
	 */
	private static List<long[]> ticks(RealRedis.Observation observed) {
		List<long[]> ticks = new ArrayList<>();
		Set<Long> tokens = tokens(observed);
		for (long ms = observed.before() / 1000 + 1; ms <= observed.after() / 1000; ms++) {
			long boundary = ms * 1000;
			Set<Long> starts = new TreeSet<>(tokens.stream().filter((token) -> token < boundary).toList());
			starts.add(observed.before());
			Set<Long> ends = new TreeSet<>(tokens.stream().filter((token) -> token >= boundary).toList());
			ends.add(boundary);
			starts.forEach((start) -> ends.forEach((end) -> ticks.add(new long[] { start, end })));
		}
		return ticks;
	}

	/**
	 * Return the numbers in the reply and in the keys the call left that lie in its
	 * bracket: tokens taken from the clock.
	 */
	private static Set<Long> tokens(RealRedis.Observation observed) {
		List<Object> numbers = new ArrayList<>();
		flatten(observed.reply(), numbers);
		observed.keys().values().forEach((state) -> {
			if (state != null) {
				numbers.addAll(state.contents());
			}
		});
		Set<Long> tokens = new TreeSet<>();
		for (Object number : numbers) {
			long value = (number instanceof Long integer) ? integer : parse(String.valueOf(number));
			if (value >= observed.before() && value <= observed.after()) {
				tokens.add(value);
			}
		}
		return tokens;
	}

	private static List<String> differences(RedisModel model, LockWorkload.Step step, @Nullable Object reply,
			List<String> messages, RealRedis.Observation observed) {
		List<String> differences = new ArrayList<>();
		long width = observed.after() / 1000 - observed.before() / 1000;
		if (!sameReply(normalize(reply), normalize(observed.reply()), leasePositions(step.script()), width)) {
			differences.add("reply: Redis " + Replies.describe(normalize(observed.reply())) + ", model "
					+ Replies.describe(normalize(reply)));
		}
		if (!messages.equals(observed.messages())) {
			differences.add("messages: Redis " + observed.messages() + ", model " + messages);
		}
		differences.addAll(compareKeys(model, observed, width, (key, state) -> state));
		return differences;
	}

	/**
	 * Compare the keys after a call, both ways: each key the call named, as the dump read
	 * it, and every other key that either side has. A key the model has and Redis lacks
	 * differs as much as the other way round, unless it may have expired before the dump
	 * read it; a key the model keeps stored but has expired is compared as a read sees
	 * it, absent, unless its expiry is within the tolerance of the one Redis has. An
	 * observation without the other keys (a test's) is compared on its named keys.
	 * @param tolerance how far the expiries may differ, in ms
	 * @param view how both sides' keys are compared (what differs by design masked)
	 * @return the differences, empty if the keys agree
	 */
	static List<String> compareKeys(RedisModel model, RealRedis.Observation observed, long tolerance,
			BiFunction<String, @Nullable KeyState, @Nullable KeyState> view) {
		List<String> differences = new ArrayList<>();
		long modelMs = model.clock().millis();
		long dumpMs = observed.dumpMicros() / 1000;
		observed.keys().forEach((key, state) -> {
			KeyState mine = KeyState.of(model.keyspace().peek(key), modelMs);
			String difference = compare(key, view.apply(key, mine), view.apply(key, state), tolerance, dumpMs);
			if (difference != null) {
				differences.add(difference);
			}
		});
		Map<String, KeyState> dumped = observed.others();
		if (dumped == null) {
			return differences;
		}
		Set<String> others = new TreeSet<>(dumped.keySet());
		others.addAll(model.keyspace().keys(modelMs));
		others.removeAll(observed.keys().keySet());
		for (String key : others) {
			Keyspace.Entry entry = model.keyspace().peek(key);
			KeyState real = dumped.get(key);
			KeyState mine = KeyState.of(entry, modelMs);
			if (mine == null && entry != null && real != null && real.expireAt() >= 0
					&& Math.abs(entry.expireAt - real.expireAt()) <= tolerance) {
				// Expired in the model a tick before Redis's clock reached it.
				mine = KeyState.of(entry, entry.expireAt);
			}
			String difference = compare(key, view.apply(key, mine), view.apply(key, real), tolerance, dumpMs);
			if (difference != null) {
				differences.add(difference + " (a key the call did not name)");
			}
		}
		return differences;
	}

	/**
	 * Compare a key of the model with the real one.
	 * @param tolerance how far the expiries may differ, in ms
	 * @param dumpMs the real server's clock when it read the key
	 * @return the difference, or {@code null}
	 */
	static @Nullable String compare(String key, @Nullable KeyState model, @Nullable KeyState real, long tolerance,
			long dumpMs) {
		if (model == null && real == null) {
			return null;
		}
		if (real == null) {
			// Gone from the dump alone: fine if it may have expired before the dump read
			// it.
			boolean mayHaveExpired = model.expireAt() >= 0 && model.expireAt() - tolerance < dumpMs;
			return mayHaveExpired ? null : "key " + key + ": Redis has none, model " + model;
		}
		if (model == null || !model.sameContents(real) || Math.abs(model.expireAt() - real.expireAt()) > tolerance
				|| (model.expireAt() < 0) != (real.expireAt() < 0)) {
			return "key " + key + ": Redis " + real + ", model " + ((model != null) ? model : "none");
		}
		return null;
	}

	/**
	 * Return the indexes of a script's reply that carry a remaining lease read with
	 * {@code PTTL} (or computed from the clock), for the replies that have them.
	 */
	private static Set<Integer> leasePositions(@Nullable String script) {
		if (script == null) {
			return Set.of();
		}
		return switch (script) {
			case "acquire.lua", "acquire-read.lua", "acquire-fair.lua", "acquire-permit.lua", "read-hold.lua" ->
				Set.of(2);
			case "acquire-all.lua" -> Set.of(3);
			default -> Set.of();
		};
	}

	private static boolean sameReply(@Nullable Object model, @Nullable Object real, Set<Integer> leases,
			long tolerance) {
		if (!(model instanceof List<?> mine) || !(real instanceof List<?> theirs) || leases.isEmpty()) {
			return Objects.equals(model, real);
		}
		if (mine.size() != theirs.size()) {
			return false;
		}
		// A status of 1 is a grant: its second element on is tokens, never a lease.
		boolean grant = !theirs.isEmpty() && Long.valueOf(1).equals(theirs.get(0));
		for (int i = 0; i < mine.size(); i++) {
			Object a = mine.get(i);
			Object b = theirs.get(i);
			boolean lease = !grant && leases.contains(i) && a instanceof Long x && b instanceof Long y
					&& Math.abs(x - y) <= tolerance;
			if (!lease && !Objects.equals(a, b)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Put a reply of either side in one form: strings for status replies, "-message" for
	 * errors.
	 */
	static @Nullable Object normalize(@Nullable Object reply) {
		if (reply instanceof Replies.StatusReply status) {
			return status.text();
		}
		if (reply instanceof Replies.ErrorReply error) {
			return "-" + error.message();
		}
		if (reply instanceof RedisCommandException error) {
			return "-" + error.getMessage();
		}
		if (reply instanceof List<?> items) {
			List<@Nullable Object> normalized = new ArrayList<>(items.size());
			items.forEach((item) -> normalized.add(normalize(item)));
			return normalized;
		}
		return reply;
	}

	private static void flatten(@Nullable Object reply, List<Object> into) {
		if (reply instanceof List<?> items) {
			items.forEach((item) -> flatten(item, into));
		}
		else if (reply != null) {
			into.add(reply);
		}
	}

	private static long parse(String text) {
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/**
	 * One run of a call on the model.
	 *
	 * @param model the model it ran on
	 * @param reply its reply
	 * @param differences how it differs from the real server's run; empty if it agrees
	 */
	record Result(RedisModel model, @Nullable Object reply, List<String> differences) {
	}

}
