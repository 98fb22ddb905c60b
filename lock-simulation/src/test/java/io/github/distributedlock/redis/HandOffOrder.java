package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.simulation.RedisModel;

import org.jspecify.annotations.Nullable;

/**
 * The oracles of what a release promises the waiters in line: the README's "a release
 * hands the lock to the oldest waiter", and that a waiter in line is told.
 * <p>
 * Each run of {@code release.lua} is checked on the state in Redis right before and right
 * after it (a script is atomic, so nothing else changes between): a reservation it makes
 * goes to the oldest well-formed request in the lock's line as the script found it (the
 * withdrawn request of a withdrawal left out, malformed members skipped as
 * {@code pass_on} skips them); and a release that reserves the lock, or frees it while a
 * well-formed request waits in line, publishes on the lock's channel. Nobody is passed
 * over: the request that was oldest when a release ran is the one it reserves for.
 * <p>
 * Each run of {@code acquire.lua} that says "taken" is checked to have found the lock's
 * hash or its readers' key. Every run is checked to keep each request's place in its line
 * ({@link LineOrder}).
 * <p>
 * Where the run loses messages but nothing else ({@link #holdReservationsToTheirClaim}),
 * also the guarantees' "a lost message costs the waiter at most half a claim": the first
 * attempt that carries a reserved request after its reservation runs before the claim
 * lapses, whether or not its waiter heard of it.
 */
final class HandOffOrder {

	/**
	 * A request member {@code pass_on} reads: a positive claim of at most 12 digits
	 * without a leading zero, a colon, and anything after.
	 */
	static final Pattern WELL_FORMED = Pattern.compile("^[1-9]\\d{0,11}:.*", Pattern.DOTALL);

	private final RedisModel redis;

	private final Consumer<String> violated;

	// The order of the lines the scripts file requests in, checked on every run.
	private final LineOrder lineOrder;

	private long checked;

	private boolean muted;

	// The reservations made and not yet tried by their request's attempt: when each was
	// made, by Redis's clock (ms).
	private final Map<String, Long> reservations = new HashMap<>();

	private boolean claimsHeld;

	private long reservedTaken;

	// Whether a reserved:<request> message reached anyone yet, where claims are held.
	private Predicate<String> heard = (request) -> true;

	private long takenInTime;

	private long takenUntold;

	HandOffOrder(RedisModel redis, Consumer<String> violated) {
		this.redis = redis;
		this.violated = violated;
		this.lineOrder = new LineOrder(redis, violated);
	}

	/**
	 * Run a script call, and check it if it is a release or an attempt.
	 * @param call the call
	 * @param run runs it on Redis and returns its reply
	 * @return its reply
	 */
	@Nullable Object run(ScriptCall call, Supplier<@Nullable Object> script) {
		if (this.muted || !this.redis.answering()) {
			return script.get();
		}
		Supplier<@Nullable Object> run = () -> this.lineOrder.run(call, script);
		if ("acquire.lua".equals(call.script().name())) {
			tried(call);
			return refusedOnlyIfTaken(call, run);
		}
		if (!"release.lua".equals(call.script().name())) {
			tried(call);
			return run.get();
		}
		List<String> keys = call.keys();
		String lock = keys.get(0);
		String channel = keys.get(1);
		List<String> argv = call.argv();
		String withdrawn = (argv.size() > 5) ? argv.get(5) : null;
		if (withdrawn != null) {
			this.reservations.remove(withdrawn);
		}
		List<String> fields = fields(lock);
		boolean lockBefore = fields != null;
		@Nullable String oldest = oldestWellFormed(keys.get(2), withdrawn);
		boolean readers = Long.valueOf(1).equals(this.redis.inspect("EXISTS", keys.get(3)));
		List<String> told = new ArrayList<>();
		this.redis.pubSub().onPublish((published, message) -> {
			if (published.equals(channel)) {
				told.add(message);
			}
		});
		Object reply;
		try {
			reply = run.get();
		}
		finally {
			this.redis.pubSub().onPublish((published, message) -> {
			});
		}
		List<String> after = fields(lock);
		String reservedBefore = (fields != null && "".equals(fields.get(0))) ? fields.get(1) : null;
		String reservedAfter = (after != null && "".equals(after.get(0))) ? after.get(1) : null;
		boolean reserved = reservedAfter != null && !reservedAfter.isEmpty()
				&& !(reservedAfter.equals(reservedBefore) && !reservedAfter.equals(withdrawn));
		String what = "release.lua on " + lock + " (" + String.join(" ", argv) + ")";
		if (reserved) {
			this.checked++;
			if (!reservedAfter.equals(oldest) || readers) {
				this.violated.accept(what + " reserved the lock for " + reservedAfter
						+ ", not the oldest request in line (" + oldest + (readers ? ", with readers" : "")
						+ "): a release hands the lock to the oldest waiter");
				return reply;
			}
			if (!told.contains("reserved:" + reservedAfter)) {
				this.violated.accept(what + " reserved the lock for " + reservedAfter + " but published " + told
						+ ": a waiter in line is told of its reservation");
				return reply;
			}
			this.reservations.put(reservedAfter, this.redis.clock().millis());
		}
		else if (lockBefore && after == null && oldest != null && told.isEmpty()) {
			this.violated.accept(what + " freed the lock with " + oldest
					+ " in line but published nothing: a waiter in line is told of a release");
		}
		else if (lockBefore && after == null && oldest != null && !readers && !"0".equals(handOff(argv))) {
			this.violated.accept(what + " freed the lock with " + oldest
					+ " in line instead of reserving it: a release hands the lock to the oldest waiter");
		}
		return reply;
	}

	/**
	 * Run an attempt, and check that it says "taken" (0) only where the lock was: its
	 * hash (held, reserved or kept) or its readers' key existed when it ran. A try has
	 * nothing else to go on: it waits for no message and files no request. And that it
	 * takes a lock reserved for a request only with that request: nobody else goes before
	 * the oldest waiter.
	 */
	private @Nullable Object refusedOnlyIfTaken(ScriptCall call, Supplier<@Nullable Object> run) {
		List<String> keys = call.keys();
		boolean free = Long.valueOf(0).equals(this.redis.inspect("EXISTS", keys.get(0), keys.get(2)));
		List<String> before = fields(keys.get(0));
		String reservedFor = (before != null && "".equals(before.get(0)) && before.get(1) != null
				&& !before.get(1).isEmpty()) ? before.get(1) : null;
		Object reply = run.get();
		String request = (call.argv().size() > 4) ? call.argv().get(4) : "";
		boolean took = reply instanceof List<?> granted && !granted.isEmpty() && granted.get(0) instanceof Number status
				&& status.longValue() == 1;
		if (took && reservedFor != null) {
			this.reservedTaken++;
			if (!reservedFor.equals(request)) {
				this.violated.accept("acquire.lua on " + keys.get(0) + " (" + String.join(" ", call.argv())
						+ ") took the lock reserved for " + reservedFor
						+ ": a release hands the lock to the oldest waiter, and only its attempt takes it");
			}
		}
		if (free && reply instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Number status
				&& status.longValue() == 0) {
			this.violated.accept("acquire.lua on " + keys.get(0) + " (" + String.join(" ", call.argv())
					+ ") said the lock was taken, with neither the lock nor its readers in Redis: an attempt "
					+ "that finds the lock free takes it");
		}
		return reply;
	}

	/**
	 * Check nothing from now on: for a planted bug's run that must be found by what the
	 * waiters see (the bound on their waits) rather than by these oracles.
	 */
	void mute() {
		this.muted = true;
	}

	/**
	 * From now on, also hold each reservation's first attempt to its claim: for a run
	 * whose only fault is lost, late and repeated messages, where nothing else (a stall,
	 * a pause, a lost reply) may delay a waiter's next attempt.
	 */
	void holdReservationsToTheirClaim(Predicate<String> heard) {
		this.claimsHeld = true;
		this.heard = heard;
	}

	/**
	 * Return, where reservations are held to their claim: how many were tried by their
	 * request within it; how many of those before anyone heard of the reservation (its
	 * message dropped, or not delivered yet), so by the waiter's retry; and how many were
	 * never tried nor withdrawn.
	 */
	long[] claimsChecked() {
		return new long[] { this.takenInTime, this.takenUntold, this.reservations.size() };
	}

	/**
	 * An acquire script is about to run: if it carries a request the lock was reserved
	 * for, it must run before that reservation's claim lapses.
	 */
	private void tried(ScriptCall call) {
		String name = call.script().name();
		int index = "acquire.lua".equals(name) ? 4 : "acquire-read.lua".equals(name) ? 5 : -1;
		List<String> argv = call.argv();
		if (index < 0 || argv.size() <= index) {
			return;
		}
		String request = argv.get(index);
		Long made = this.reservations.remove(request);
		if (made == null || !this.claimsHeld) {
			return;
		}
		long claim = HandOffRequest.claimMillis(request);
		long late = this.redis.clock().millis() - made;
		if (late >= claim) {
			this.violated.accept(name + " with " + request + " ran " + late + " ms after the lock was reserved for it,"
					+ " when its claim of " + claim + " ms had lapsed: a waiter with a request tries again within"
					+ " half its claim, so a lost message costs it at most that");
			return;
		}
		this.takenInTime++;
		this.takenUntold += this.heard.test(request) ? 0 : 1;
	}

	/**
	 * Return how many reservations were checked.
	 */
	long checked() {
		return this.checked;
	}

	/**
	 * Return how many runs filed a request that was in its line already, each checked to
	 * keep its place ({@link LineOrder}).
	 */
	long refilingsChecked() {
		return this.lineOrder.refilings();
	}

	/**
	 * Return how many attempts took a lock reserved for a request, each checked to carry
	 * that request.
	 */
	long reservedTaken() {
		return this.reservedTaken;
	}

	private static String handOff(List<String> argv) {
		return (argv.size() > 3) ? argv.get(3) : "1";
	}

	private @Nullable List<String> fields(String lock) {
		if (!Long.valueOf(1).equals(this.redis.inspect("EXISTS", lock))) {
			return null;
		}
		Object fields = this.redis.inspect("HMGET", lock, "owner", "reserved");
		List<String> values = new ArrayList<>();
		if (fields instanceof List<?> list) {
			for (Object value : list) {
				values.add((value != null) ? String.valueOf(value) : null);
			}
		}
		return values;
	}

	private @Nullable String oldestWellFormed(String requests, @Nullable String withdrawn) {
		Object line = this.redis.inspect("ZRANGE", requests, "0", "-1");
		if (line instanceof List<?> members) {
			for (Object member : members) {
				String request = String.valueOf(member);
				if (!request.equals(withdrawn) && WELL_FORMED.matcher(request).matches()) {
					return request;
				}
			}
		}
		return null;
	}

}
