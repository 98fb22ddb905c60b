package io.github.distributedlock.simulation;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.script.ScriptArgs;

import org.jspecify.annotations.Nullable;

/**
 * Random, seeded sequences of the calls the engine makes: each of its scripts with the
 * keys and arguments its lock kinds build ({@code LockKind}, {@code LockCommands}), its
 * plain commands, and pauses. Key names follow {@code LockKeys}: a lock
 * {@code dl:{scope:key}} and its suffixed keys, and a fencing counter per hash slot,
 * shared here by two of the three locks. Owners, hold ids and requests look like the
 * engine's; leases, claims and waiter timeouts are short enough to run out during a test,
 * beside the engine's usual ones. Holds the replies read so far to call release, extend
 * and renew with real tokens, sometimes stale ones, and to retry an attempt with its hold
 * id.
 */
final class LockWorkload {

	private static final String[] LOCKS = { "dl:{orders:1}", "dl:{orders:2}", "dl:{stock}" };

	private static final String[] FENCES = { "dl:{3a}:fence", "dl:{3a}:fence", "dl:{Zq}:fence" };

	private static final String[] OWNERS = { "5f0c9a2e41b7d3c8e6a1f0b2c4d6e8a0:1", "5f0c9a2e41b7d3c8e6a1f0b2c4d6e8a0:7",
			"a1b2c3d4e5f60718293a4b5c6d7e8f90:1", "custom:billing" };

	private static final String[] LEASES = { "20", "45", "120", "400" };

	private static final String FENCE_IDLE = "604800000";

	private final SimulationRandom random;

	// The blocks of tokens attempts ask for: a stream of their own, so that every other
	// draw is what it was before attempts asked for blocks, and the seeds reach the
	// branches they reached then.
	private final SimulationRandom blocks;

	private final List<Held> held = new ArrayList<>();

	private final List<String> attempts = new ArrayList<>();

	// Recent fair attempts, as {lock, owner, hold}: a waiter that gives up leaves by its
	// own.
	private final List<String[]> fairWaiters = new ArrayList<>();

	private final List<String> requests = new ArrayList<>();

	/**
	 * The calls a sequence drawn before still has to make, each built when it is made (a
	 * release, from the grant the sequence's attempt got).
	 */
	private final java.util.ArrayDeque<java.util.function.Supplier<Step>> pending = new java.util.ArrayDeque<>();

	private long ids;

	LockWorkload(SimulationRandom random) {
		this.random = random;
		this.blocks = new SimulationRandom(~random.seed());
	}

	/**
	 * Return the channels the engine's waiters listen on: each lock's release channel and
	 * its permits' release channel.
	 */
	static List<String> channels() {
		List<String> channels = new ArrayList<>();
		for (String lock : LOCKS) {
			channels.add(lock + ":released");
			channels.add(lock + ":permits:released");
		}
		return channels;
	}

	/**
	 * Return the keyspace channels of every key the calls write: each lock's keys and the
	 * fencing counters, whose events the differential test compares too.
	 */
	static List<String> keyspaceChannels() {
		java.util.Set<String> keys = new java.util.LinkedHashSet<>();
		for (String lock : LOCKS) {
			keys.addAll(List.of(lock, readers(lock), lock + ":readholds", lock + ":intent", lock + ":requests",
					lock + ":queue", lock + ":queue:heartbeats", permits(lock)));
		}
		keys.addAll(List.of(FENCES));
		return keys.stream().map(CommandContext::keyspaceChannel).toList();
	}

	/**
	 * Return the next call to make.
	 */
	Step next() {
		if (!this.pending.isEmpty()) {
			return this.pending.poll().get();
		}
		if (this.random.chance(0.03)) {
			return line(this.random.nextInt(LOCKS.length));
		}
		int roll = this.random.nextInt(100);
		int lock = this.random.nextInt(LOCKS.length);
		String owner = this.random.pick(List.of(OWNERS));
		if (roll < 14) {
			return acquire(lock, owner);
		}
		if (roll < 23) {
			return release();
		}
		if (roll < 26) {
			return withdraw(lock);
		}
		if (roll < 31) {
			Held hold = pickHeld("lock");
			return script("extend.lua", List.of(hold.lock()), hold.owner(), hold.token(), hold.hold(), lease());
		}
		if (roll < 34) {
			return renew();
		}
		if (roll < 42) {
			return acquireRead(lock, owner);
		}
		if (roll < 48) {
			Held hold = pickHeld("read");
			return script("release-read.lua",
					List.of(readers(hold.lock()), hold.lock() + ":readholds", hold.lock() + ":released"), hold.owner(),
					hold.hold(), keep());
		}
		if (roll < 51) {
			Held hold = pickHeld("read");
			return script("extend-read.lua", List.of(readers(hold.lock()), hold.lock() + ":readholds"), hold.owner(),
					hold.hold(), lease());
		}
		if (roll < 57) {
			return script("acquire-permit.lua", List.of(permits(LOCKS[lock]), FENCES[lock]), owner, attempt(), lease(),
					this.random.chance(0.8) ? "2" : "1", fenceIdle());
		}
		if (roll < 62) {
			Held hold = pickHeld("permit");
			return script("release-permit.lua", List.of(permits(hold.lock()), permits(hold.lock()) + ":released"),
					hold.owner(), hold.hold(), keep());
		}
		if (roll < 65) {
			Held hold = pickHeld("permit");
			return script("extend-permit.lua", List.of(permits(hold.lock())), hold.owner(), hold.hold(), lease());
		}
		if (roll < 71) {
			String hold = attempt();
			this.fairWaiters.add(new String[] { LOCKS[lock], owner, hold });
			if (this.fairWaiters.size() > 12) {
				this.fairWaiters.remove(0);
			}
			return script("acquire-fair.lua", fairKeys(LOCKS[lock], FENCES[lock]), owner, hold, lease(), flag(),
					fenceIdle(), this.random.pick(List.of("30", "200", "5000")), flag());
		}
		if (roll < 75) {
			Held hold = pickHeld("lock");
			return script("release-fair.lua", fairReleaseKeys(hold.lock()), hold.owner(), hold.token(), hold.hold(),
					keep());
		}
		if (roll < 77) {
			if (this.fairWaiters.isEmpty()) {
				return script("leave-fair.lua", fairReleaseKeys(LOCKS[lock]), owner, attempt());
			}
			String[] waiter = this.random.pick(this.fairWaiters);
			return script("leave-fair.lua", fairReleaseKeys(waiter[0]), waiter[1], waiter[2]);
		}
		if (roll < 81) {
			return acquireAll(owner);
		}
		if (roll < 83) {
			Held hold = pickHeld("lock");
			return script("force-release.lua", List.of(hold.lock(), hold.lock() + ":released"), hold.token());
		}
		if (roll < 85) {
			return script("drop-intent.lua", List.of(LOCKS[lock] + ":intent", LOCKS[lock] + ":released"), owner);
		}
		if (roll < 88) {
			Held hold = pickHeld(this.random.chance(0.5) ? "read" : "permit");
			boolean permit = hold.kind().equals("permit");
			return script("held-member.lua", List.of(permit ? permits(hold.lock()) : readers(hold.lock())),
					hold.owner(), permit ? "|" + hold.hold() : "");
		}
		if (roll < 91) {
			return script("read-hold.lua", List.of(LOCKS[lock]));
		}
		if (roll < 93) {
			return this.random.chance(0.5) ? new Step(null, List.of("HMGET", LOCKS[lock], "owner", "token"), 0)
					: new Step(null, List.of("EXISTS", LOCKS[lock]), 0);
		}
		return new Step(null, List.of(), this.random.chance(0.15) ? 150 : this.random.between(1, 40));
	}

	/**
	 * Learn from a call's reply: a grant becomes a hold to release, extend or renew.
	 */
	void replied(Step step, @Nullable Object reply) {
		if (step.script() == null || !(reply instanceof List<?> items) || items.isEmpty()
				|| !Long.valueOf(1).equals(items.get(0))) {
			return;
		}
		List<String> args = step.args();
		switch (step.script()) {
			case "acquire.lua", "acquire-fair.lua" ->
				hold("lock", step.keys().get(0), args.get(0), items.get(1), args.get(1));
			case "acquire-read.lua" -> hold("read", step.keys().get(0), args.get(0), items.get(1), args.get(1));
			case "acquire-permit.lua" ->
				hold("permit", step.keys().get(0).replace(":permits", ""), args.get(0), items.get(1), args.get(1));
			case "acquire-all.lua" -> {
				for (int i = 1; i < items.size(); i++) {
					hold("lock", step.keys().get(5 * (i - 1)), args.get(0), items.get(i), args.get(1));
				}
			}
			default -> {
			}
		}
	}

	private void hold(String kind, String lock, String owner, @Nullable Object token, String hold) {
		this.held.add(new Held(kind, lock, owner, String.valueOf(token), hold));
		if (this.held.size() > 24) {
			this.held.remove(0);
		}
	}

	private Step acquire(int lock, String owner) {
		String key = LOCKS[lock];
		boolean holdsIt = this.held.stream().anyMatch((h) -> h.lock().equals(key) && h.owner().equals(owner));
		if (this.random.chance(0.1)) {
			holdsIt = !holdsIt;
		}
		// Drawn in the order they were drawn when the script took them in this order.
		String attempt = attempt();
		long lease = Long.parseLong(lease());
		boolean reentrant = flag().equals("1");
		long fenceIdle = Long.parseLong(fenceIdle());
		long wait = Long.parseLong(this.random.pick(List.of("-1", "0", "10", "100", "5000")));
		boolean mayHaveIntent = flag().equals("1");
		String request = this.random.chance(0.5) ? "" : request();
		long requestTtl = Long.parseLong(requestTtl());
		// A cohort's opening asks for a block of tokens (docs/design/cohorting.md, rule
		// 2).
		int block = this.blocks.chance(0.2) ? Integer.parseInt(this.blocks.pick(List.of("2", "16", "1000"))) : 1;
		// As the engine sends them: the arguments at their defaults left off.
		List<String> argv = new ScriptArgs.Acquire(owner, attempt, lease, wait, request, requestTtl, mayHaveIntent,
				holdsIt, reentrant, fenceIdle, block)
			.argv();
		return new Step("acquire.lua", List.of(key, FENCES[lock], readers(key), key + ":intent", key + ":requests"),
				argv, 0);
	}

	private Step release() {
		Held hold = pickHeld("lock");
		return script("release.lua", releaseKeys(hold.lock()), hold.owner(), hold.token(), hold.hold(), flag(), keep());
	}

	private Step withdraw(int lock) {
		return script("release.lua", releaseKeys(LOCKS[lock]), "", "", "", flag(), "0", request());
	}

	private Step renew() {
		int count = 1 + this.random.nextInt(3);
		List<String> keys = new ArrayList<>();
		List<String> args = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Held hold = pickHeld("lock");
			keys.add(hold.lock());
			args.addAll(List.of(hold.owner(), hold.token(), hold.hold(), lease()));
		}
		return new Step("renew.lua", keys, args, 0);
	}

	private Step acquireRead(int lock, String owner) {
		String key = LOCKS[lock];
		return script("acquire-read.lua",
				List.of(key, FENCES[lock], readers(key), key + ":readholds", key + ":intent", key + ":requests",
						key + ":released"),
				owner, attempt(), lease(), flag(), fenceIdle(), this.random.chance(0.5) ? "" : request(), requestTtl());
	}

	private Step acquireAll(String owner) {
		List<Integer> chosen = new ArrayList<>(List.of(0, 1, 2));
		chosen.remove(this.random.nextInt(3));
		if (this.random.chance(0.3)) {
			chosen.add(0, 3 - chosen.get(0) - chosen.get(1));
		}
		List<String> keys = new ArrayList<>();
		List<String> args = new ArrayList<>(
				List.of(owner, attempt(), flag(), fenceIdle(), this.random.chance(0.5) ? "" : request(), requestTtl()));
		for (int lock : chosen) {
			String key = LOCKS[lock];
			keys.addAll(List.of(key, FENCES[lock], readers(key), key + ":requests", key + ":released"));
			args.add(lease());
		}
		return new Step("acquire-all.lua", keys, args, 0);
	}

	private Held pickHeld(String kind) {
		List<Held> matching = this.held.stream().filter((h) -> h.kind().equals(kind)).toList();
		if (matching.isEmpty() || this.random.chance(0.1)) {
			// A hold nobody has: a stale or foreign token.
			return new Held(kind, LOCKS[this.random.nextInt(LOCKS.length)], this.random.pick(List.of(OWNERS)),
					Long.toString(this.random.between(1, 1L << 52)), newId());
		}
		// Mostly a recent hold, so that many releases, extends and renewals find it live.
		int from = this.random.chance(0.6) ? Math.max(0, matching.size() - 2) : 0;
		return matching.get(from + this.random.nextInt(matching.size() - from));
	}

	/**
	 * Return a hold id: new, or (as a retried attempt) one used before.
	 */
	private String attempt() {
		if (!this.attempts.isEmpty() && this.random.chance(0.25)) {
			return this.random.pick(this.attempts);
		}
		String id = newId();
		this.attempts.add(id);
		if (this.attempts.size() > 12) {
			this.attempts.remove(0);
		}
		return id;
	}

	private String request() {
		if (!this.requests.isEmpty() && this.random.chance(0.6)) {
			return this.random.pick(this.requests);
		}
		// Half of an older engine's forms, chained (c:) or quiet (q:), as a JVM on an
		// older version files them during a rolling upgrade: a release reserves for them
		// and tells them like any.
		double form = this.random.nextDouble();
		String request = this.random.pick(List.of("2000", "60", "25"))
				+ ((form < 0.3) ? ":q:" : (form < 0.5) ? ":c:" : ":") + newId();
		remember(request);
		return request;
	}

	private void remember(String request) {
		this.requests.add(request);
		if (this.requests.size() > 8) {
			this.requests.remove(0);
		}
	}

	/**
	 * Build a line of requests in front of a hold and release it (docs/design/
	 * waiting-and-hand-off.md, "Rolling upgrade"): the lock freed (and its line too,
	 * mostly), taken by a new hold, a line of 1 to 13 requests filed ahead of any the
	 * engine filed, the hold marked by a refused attempt, and released. The line's first
	 * well-formed request is reserved, whatever its form (this engine's, or an older
	 * engine's chained or quiet one), and the release publishes; members of other forms
	 * are drawn among them.
	 */
	private Step line(int lock) {
		String key = LOCKS[lock];
		String requestsKey = key + ":requests";
		String owner = this.random.pick(List.of(OWNERS));
		String attempt = newId();
		List<String> members = lineMembers();
		List<String> zadd = new ArrayList<>(List.of("ZADD", requestsKey));
		for (int i = 0; i < members.size(); i++) {
			// Scored before any request the engine files (the server's clock in ms).
			zadd.add(Integer.toString(i + 1));
			zadd.add(members.get(i));
		}
		this.pending.add(() -> new Step("acquire.lua", acquireKeys(lock),
				new ScriptArgs.Acquire(owner, attempt, 1000, -1, "", 30000, false, false, true, 604800000L, 1).argv(),
				0));
		this.pending.add(() -> new Step(null, zadd, 0));
		if (this.random.chance(0.5)) {
			String ttl = this.random.chance(0.8) ? "30000" : "300";
			this.pending.add(() -> new Step(null, List.of("PEXPIRE", requestsKey, ttl), 0));
		}
		String first = members.stream().filter(LockWorkload::wellFormed).findFirst().orElse(null);
		if (first != null && this.random.chance(0.3)) {
			remember(first);
		}
		String other = this.random.pick(List.of(OWNERS).stream().filter((o) -> !o.equals(owner)).toList());
		this.pending.add(() -> new Step("acquire.lua", acquireKeys(lock),
				new ScriptArgs.Acquire(other, newId(), 400, -1, "", 30000, false, false, true, 604800000L, 1).argv(),
				0));
		String keep = this.random.chance(0.85) ? "0" : "200";
		this.pending.add(() -> {
			Held hold = this.held.stream()
				.filter((h) -> h.kind().equals("lock") && h.lock().equals(key) && h.hold().equals(attempt))
				.findFirst()
				.orElse(null);
			if (hold == null) {
				return release();
			}
			return script("release.lua", releaseKeys(key), owner, hold.token(), attempt, "1", keep);
		});
		return new Step(null, this.random.chance(0.7) ? List.of("DEL", key, requestsKey) : List.of("DEL", key), 0);
	}

	/**
	 * Return the members of a line: its first mostly an older engine's request (quiet or
	 * chained), behind it quiet requests, and now and then one of another kind (plain,
	 * chained, of another form) among them, or members of other forms in front.
	 */
	private List<String> lineMembers() {
		List<String> members = new ArrayList<>();
		if (this.random.chance(0.15)) {
			members.add(malformed());
		}
		double head = this.random.nextDouble();
		members.add(member((head < 0.45) ? "q" : (head < 0.75) ? "c" : (head < 0.95) ? "" : "bad"));
		int behind = this.random.pick(List.of(0, 0, 1, 2, 3, 5, 6, 6, 7, 7, 8, 10, 12));
		for (int i = 0; i < behind; i++) {
			members.add(member("q"));
		}
		if (behind > 0 && this.random.chance(0.4)) {
			String odd = member(this.random.pick(List.of("", "c", "bad")));
			members.set(1 + this.random.nextInt(members.size() - 1), odd);
		}
		return members;
	}

	private String member(String form) {
		if (form.equals("bad")) {
			return malformed();
		}
		String claim = this.random.pick(List.of("2000", "60", "25"));
		return claim + ":" + (form.isEmpty() ? "" : form + ":") + newId();
	}

	/**
	 * Return a member of none of the engines' forms: pass_on drops it where it is first.
	 */
	private String malformed() {
		String id = newId();
		return this.random.pick(List.of("0:q:" + id, "02000:q:" + id, "1234567890123:q:" + id, "2000:Q:" + id,
				"2000q:" + id, ":q:" + id, "-5:q:" + id, "30000 7 0123abcd:" + id, "abc", "2000:x:" + id));
	}

	/**
	 * Whether pass_on reserves the lock for a member: a claim of 1 to 12 digits without a
	 * leading zero, then a colon.
	 */
	private static boolean wellFormed(String member) {
		return member.matches("[1-9][0-9]{0,11}:.*");
	}

	private static List<String> acquireKeys(int lock) {
		String key = LOCKS[lock];
		return List.of(key, FENCES[lock], readers(key), key + ":intent", key + ":requests");
	}

	private String newId() {
		return "9c41d07e5ab2f386." + Long.toHexString(++this.ids);
	}

	private String lease() {
		return this.random.chance(0.05) ? "30000" : this.random.pick(List.of(LEASES));
	}

	private String keep() {
		return this.random.chance(0.75) ? "0" : this.random.pick(List.of("15", "60", "1000"));
	}

	private String fenceIdle() {
		return this.random.chance(0.9) ? FENCE_IDLE : "30";
	}

	private String requestTtl() {
		return this.random.chance(0.8) ? "30000" : "80";
	}

	private String flag() {
		return this.random.chance(0.5) ? "1" : "0";
	}

	private static String readers(String lock) {
		return lock + ":readers";
	}

	private static String permits(String lock) {
		return lock + ":permits";
	}

	private static List<String> releaseKeys(String lock) {
		return List.of(lock, lock + ":released", lock + ":requests", readers(lock));
	}

	private static List<String> fairKeys(String lock, String fence) {
		return List.of(lock, fence, readers(lock), lock + ":queue", lock + ":queue:heartbeats");
	}

	private static List<String> fairReleaseKeys(String lock) {
		return List.of(lock, lock + ":released", lock + ":queue", lock + ":queue:heartbeats");
	}

	private static Step script(String name, List<String> keys, String... args) {
		return new Step(name, keys, List.of(args), 0);
	}

	/**
	 * A hold the workload has seen granted.
	 *
	 * @param kind {@code lock}, {@code read} or {@code permit}
	 * @param lock the lock key
	 * @param owner the owner
	 * @param token its fencing token
	 * @param hold its hold id
	 */
	record Held(String kind, String lock, String owner, String token, String hold) {
	}

	/**
	 * One call: a script with its keys and arguments, a plain command ({@code script}
	 * null, {@code keys} the command), or a pause ({@code pauseMillis} above 0).
	 *
	 * @param script the script's name
	 * @param keys its keys, or the command and its arguments
	 * @param args its arguments
	 * @param pauseMillis how long to let time pass, for a pause
	 */
	record Step(@Nullable String script, List<String> keys, List<String> args, long pauseMillis) {

		Step(@Nullable String script, List<String> command, long pauseMillis) {
			this(script, command, List.of(), pauseMillis);
		}

		boolean isPause() {
			return this.pauseMillis > 0;
		}

		@Override
		public String toString() {
			if (isPause()) {
				return "pause " + this.pauseMillis + " ms";
			}
			if (this.script == null) {
				return String.join(" ", this.keys);
			}
			return this.script + " KEYS=" + this.keys + " ARGV=" + this.args;
		}

	}

}
