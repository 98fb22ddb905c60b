package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BinaryOperator;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of the reader and writer scripts on one lock, checked after every step
 * on a real redis-server: no lock hash reserved for a request while the readers key
 * exists (what {@code acquire.lua} counts on when it takes its own reservation without
 * asking for readers), no writer while a reader of another owner is live, and no fresh
 * write hold of an owner whose own read lease is live (an upgrade). Writers, readers and
 * a custom owner shared by two writing processes and one reading one; random flags
 * (reentrant, holds it, may have intent), minimum holds, withdrawals, forced releases,
 * multi-lock takes, short leases and claims that run out, commands run twice, and the
 * waiter a reservation is for told to try. Written by an adversarial review of the
 * own-reservation shortcut and of the intent drop on joining.
 */
class ReaderWriterScriptFuzzTests {

	private static final String LOCK = "fz:{f}";

	private static final String OTHER = "fz:{f}:two";

	private static final String READERS = LockKeys.readers(LOCK);

	private static final String READ_HOLDS = LockKeys.readHolds(LOCK);

	private static final String INTENT = LockKeys.writerIntent(LOCK);

	private static final String REQUESTS = LockKeys.requests(LOCK);

	private static final String CHANNEL = LockKeys.releaseChannel(LOCK);

	private static final String SHARED = "custom:shared";

	/**
	 * Checks Redis in one step (one clock reading): '' if the state is allowed, else what
	 * is wrong.
	 */
	private static final String CHECK = String.join("\n", "local clock = redis.call('TIME')",
			"local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)",
			"local held = redis.call('HMGET', KEYS[1], 'owner', 'reserved')",
			"if held[1] == '' and held[2] and held[2] ~= '' and redis.call('EXISTS', KEYS[2]) == 1 then",
			"  return 'reserved for ' .. held[2] .. ' while the readers key exists'", "end",
			"if held[1] and held[1] ~= '' then",
			"  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now, '+inf')) do",
			"    if m ~= held[1] and m ~= 'kept|' .. held[1] then",
			"      return 'writer ' .. held[1] .. ' with live reader ' .. m", "    end", "  end", "end", "return ''");

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldKeepReadersAndWritersApartOverRandomScriptSequences() {
		int seeds = Integer.getInteger("fuzz.seeds", 12);
		int steps = Integer.getInteger("fuzz.steps", 2500);
		Coverage total = new Coverage();
		for (int seed = 1; seed <= seeds; seed++) {
			redis.server().command("FLUSHALL");
			String violation = new Run(seed, steps, (script, text) -> text, total).run();
			assertThat(violation).as("seed %d", seed).isEmpty();
		}
		System.out.println("COVERAGE own=" + total.ownReservationsTaken + " joins=" + total.joinsDroppingIntent
				+ " reads=" + total.readGrants + " reservedSteps=" + total.reservationsSeen + " readersSteps="
				+ total.readersSeen + " emptyOwner=" + total.emptyOwnerSeen);
		// The paths under review were exercised.
		assertThat(total.ownReservationsTaken).isPositive();
		assertThat(total.joinsDroppingIntent).isPositive();
		assertThat(total.readGrants).isPositive();
	}

	/**
	 * The checker finds a release that reserves while a downgrade reads: the writer that
	 * takes that reservation then holds beside a live reader.
	 */
	@Test
	void shouldCatchAPlantedReservationBesideReaders() {
		assertThat(plantedViolation("release",
				"if line[1] and (not readers or redis.call('EXISTS', readers) == 0) then", "if line[1] then"))
			.contains("while the readers key exists");
	}

	/**
	 * The checker finds a writer that takes a free lock without looking for readers.
	 */
	@Test
	void shouldCatchAPlantedWriterBesideReaders() {
		assertThat(plantedViolation("acquire", "if held[1] ~= '' and redis.call('EXISTS', KEYS[3]) == 1 then",
				"if false then"))
			.containsAnyOf("with live reader", "while its read lease was live");
	}

	private static String plantedViolation(String script, String line, String planted) {
		BinaryOperator<String> patch = (name, text) -> {
			if (!name.equals(script)) {
				return text;
			}
			assertThat(text).contains(line);
			return text.replace(line, planted);
		};
		Coverage total = new Coverage();
		for (int seed = 1; seed <= 40; seed++) {
			redis.server().command("FLUSHALL");
			String violation = new Run(seed, 2500, patch, total).run();
			if (!violation.isEmpty()) {
				return violation;
			}
		}
		return "";
	}

	/** What the runs exercised. */
	private static final class Coverage {

		int ownReservationsTaken;

		int joinsDroppingIntent;

		int readGrants;

		int reservationsSeen;

		int readersSeen;

		int emptyOwnerSeen;

	}

	/** One seed's run. */
	private static final class Run {

		private final Random random;

		private final int steps;

		private final BinaryOperator<String> patch;

		private final Coverage coverage;

		private final List<Actor> actors = new ArrayList<>();

		private final List<String[]> history = new ArrayList<>();

		private int ids;

		private String upgrade = "";

		Run(int seed, int steps, BinaryOperator<String> patch, Coverage coverage) {
			this.random = new Random(seed);
			this.steps = steps;
			this.patch = patch;
			this.coverage = coverage;
			this.actors.add(new Actor("w1", false, "p1"));
			this.actors.add(new Actor("w2", false, "p2"));
			this.actors.add(new Actor("r1", true, "p3"));
			this.actors.add(new Actor("r2", true, "p4"));
			this.actors.add(new Actor(SHARED, false, "pA"));
			this.actors.add(new Actor(SHARED, false, "pB"));
			this.actors.add(new Actor(SHARED, true, "pA"));
		}

		String run() {
			for (int step = 0; step < this.steps; step++) {
				// Readers less often than writers, or their leases overlap so that the
				// lock is hardly ever free of them and no reservation is made.
				boolean reading = this.random.nextInt(4) == 0;
				List<Actor> side = this.actors.stream().filter((a) -> a.reader == reading).toList();
				Actor actor = side.get(this.random.nextInt(side.size()));
				Actor told = told();
				String what = (told != null && this.random.nextBoolean()) ? attempt(told) : step(actor);
				String violation = check();
				Object reserved = redis.server().command("HGET", LOCK, "reserved");
				if (reserved != null && !"".equals(reserved)) {
					this.coverage.reservationsSeen++;
				}
				if (redis.server().command("EXISTS", READERS).equals(1L)) {
					this.coverage.readersSeen++;
				}
				if ("".equals(redis.server().command("HGET", LOCK, "owner"))) {
					this.coverage.emptyOwnerSeen++;
				}
				if (!violation.isEmpty()) {
					return "step " + step + " (" + what + "): " + violation;
				}
			}
			return "";
		}

		/**
		 * The waiter the lock is reserved for, told so by the release's message, or
		 * {@code null}.
		 */
		private Actor told() {
			Object reserved = redis.server().command("HGET", LOCK, "reserved");
			for (Actor actor : this.actors) {
				if (actor.hold != null && !actor.request.isEmpty() && actor.request.equals(reserved)) {
					return actor;
				}
			}
			return null;
		}

		private String attempt(Actor actor) {
			return actor.reader ? readerStep(actor, 99) : writerStep(actor, 99);
		}

		private String step(Actor actor) {
			int dice = this.random.nextInt(100);
			if (dice < 4) {
				sleep(1 + this.random.nextInt(30));
				return "sleep";
			}
			if (dice < 10 && !this.history.isEmpty()) {
				// A command re-sent after a reconnect: it runs twice.
				String[] again = this.history.get(this.history.size() - 1);
				eval(again);
				return "re-run of " + again[0];
			}
			if (dice < 13) {
				String token = string(redis.server().command("HGET", LOCK, "token"));
				if (token != null && this.random.nextInt(4) == 0) {
					record("force-release", List.of(LOCK, CHANNEL), token);
				}
				return "force-release";
			}
			if (dice < 18 && !actor.requests.isEmpty()) {
				String request = actor.requests.get(this.random.nextInt(actor.requests.size()));
				record("release", List.of(LOCK, CHANNEL, REQUESTS, READERS), "", "0", "", bit(9), "0", request);
				return "withdraw " + request;
			}
			if (dice < 21 && !actor.reader) {
				record("drop-intent", List.of(INTENT, CHANNEL), actor.owner);
				return "drop-intent";
			}
			return actor.reader ? readerStep(actor, dice) : writerStep(actor, dice);
		}

		private String writerStep(Actor actor, int dice) {
			if (dice < 40 && !actor.holds.isEmpty()) {
				String[] hold = actor.holds.remove(this.random.nextInt(actor.holds.size()));
				String keep = (this.random.nextInt(4) == 0) ? Integer.toString(5 + this.random.nextInt(40)) : "0";
				record("release", List.of(LOCK, CHANNEL, REQUESTS, READERS), actor.owner, hold[0], hold[1], bit(9),
						keep);
				return "release";
			}
			if (dice < 48 && !actor.holds.isEmpty()) {
				String[] hold = actor.holds.get(this.random.nextInt(actor.holds.size()));
				record("extend", List.of(LOCK), actor.owner, hold[0], hold[1], lease());
				return "extend";
			}
			if (dice < 54) {
				return acquireAll(actor);
			}
			if (actor.hold == null || this.random.nextInt(10) == 0) {
				abandon(actor);
				actor.hold = actor.process + "-h" + (++this.ids);
				actor.request = (this.random.nextInt(3) > 0) ? claim() + ":" + actor.process + "-q" + (++this.ids) : "";
				if (!actor.request.isEmpty()) {
					actor.requests.add(actor.request);
				}
				actor.heldBack = false;
			}
			List<?> before = (List<?>) redis.server().command("HMGET", LOCK, "owner", "reserved");
			String ownerDigest = LockOwners.digest(actor.owner);
			boolean reservedForUs = "".equals(before.get(0)) && !actor.request.isEmpty()
					&& actor.request.equals(before.get(1));
			boolean joining = ownerDigest.equals(before.get(0));
			String intentBefore = string(redis.server().command("GET", INTENT));
			String mayHaveIntent = (actor.heldBack || this.random.nextInt(5) == 0) ? "1" : "0";
			boolean holdsIt = !actor.holds.isEmpty() || this.random.nextInt(4) == 0;
			String wait = List.of("-1", "0", "200").get(this.random.nextInt(3));
			// Drawn in the order they were drawn when the script took them in another
			// order.
			String lease = lease();
			String reentrant = bit(5);
			List<?> reply = (List<?>) record("acquire", List.of(LOCK, LockKeys.fence(LOCK), READERS, INTENT, REQUESTS),
					actor.owner, actor.hold, lease, wait, actor.request, "30000", mayHaveIntent, holdsIt ? "1" : "0",
					reentrant, "60000");
			long status = (Long) reply.get(0);
			if (status == 1) {
				actor.holds.add(new String[] { String.valueOf(reply.get(1)), actor.hold });
				actor.hold = null;
				if (reservedForUs) {
					this.coverage.ownReservationsTaken++;
				}
				if (joining && "1".equals(mayHaveIntent) && ownerDigest.equals(intentBefore)) {
					this.coverage.joinsDroppingIntent++;
				}
			}
			else if (status == 0 && reply.size() > 1 && ((Number) reply.get(1)).longValue() == 0) {
				actor.heldBack = true;
			}
			return "acquire " + actor.owner + " " + status;
		}

		private String acquireAll(Actor actor) {
			String hold = actor.process + "-m" + (++this.ids);
			String request = (this.random.nextBoolean()) ? claim() + ":" + actor.process + "-a" + (++this.ids) : "";
			if (!request.isEmpty()) {
				actor.requests.add(request);
			}
			List<?> reply = (List<?>) record("acquire-all",
					List.of(LOCK, LockKeys.fence(LOCK), READERS, REQUESTS, CHANNEL, OTHER, LockKeys.fence(OTHER),
							LockKeys.readers(OTHER), LockKeys.requests(OTHER), LockKeys.releaseChannel(OTHER)),
					actor.owner, hold, bit(5), "60000", request, "30000", lease(), "40");
			long status = (Long) reply.get(0);
			if (status == 1) {
				actor.holds.add(new String[] { String.valueOf(reply.get(1)), hold });
			}
			else if (!request.isEmpty()) {
				// A try of a multi-lock wait that then gives up.
				record("release", List.of(LOCK, CHANNEL, REQUESTS, READERS), "", "0", "", "1", "0", request);
				record("release", List.of(OTHER, LockKeys.releaseChannel(OTHER), LockKeys.requests(OTHER),
						LockKeys.readers(OTHER)), "", "0", "", "1", "0", request);
			}
			return "acquire-all " + actor.owner + " " + status;
		}

		private String readerStep(Actor actor, int dice) {
			if (dice < 55 && !actor.holds.isEmpty()) {
				String[] hold = actor.holds.remove(this.random.nextInt(actor.holds.size()));
				String keep = (this.random.nextInt(4) == 0) ? Integer.toString(5 + this.random.nextInt(40)) : "0";
				record("release-read", List.of(READERS, READ_HOLDS, CHANNEL), actor.owner, hold[1], keep);
				return "release-read";
			}
			if (dice < 62 && !actor.holds.isEmpty()) {
				String[] hold = actor.holds.get(this.random.nextInt(actor.holds.size()));
				record("extend-read", List.of(READERS, READ_HOLDS), actor.owner, hold[1], readLease());
				return "extend-read";
			}
			if (actor.hold == null || this.random.nextInt(10) == 0) {
				abandon(actor);
				actor.hold = actor.process + "-r" + (++this.ids);
				actor.request = (this.random.nextInt(3) > 0) ? claim() + ":" + actor.process + "-q" + (++this.ids) : "";
				if (!actor.request.isEmpty()) {
					actor.requests.add(actor.request);
				}
			}
			List<?> reply = (List<?>) record("acquire-read",
					List.of(LOCK, LockKeys.fence(LOCK), READERS, READ_HOLDS, INTENT, REQUESTS, CHANNEL), actor.owner,
					actor.hold, readLease(), bit(5), "60000", actor.request, "30000");
			long status = (Long) reply.get(0);
			if (status == 1) {
				actor.holds.add(new String[] { String.valueOf(reply.get(1)), actor.hold });
				actor.hold = null;
				this.coverage.readGrants++;
			}
			return "acquire-read " + actor.owner + " " + status;
		}

		/**
		 * A wait given up withdraws its request, as the drivers do, unless that is lost.
		 */
		private void abandon(Actor actor) {
			if (actor.hold != null && !actor.request.isEmpty() && this.random.nextInt(30) > 0) {
				record("release", List.of(LOCK, CHANNEL, REQUESTS, READERS), "", "0", "", "1", "0", actor.request);
			}
		}

		/**
		 * Run a script and keep it for later re-runs; an acquire that grants a fresh
		 * write hold is checked for an upgrade (its owner's read lease live).
		 */
		private Object record(String script, List<String> keys, String... args) {
			String[] command = new String[2 + keys.size() + args.length];
			command[0] = script;
			command[1] = Integer.toString(keys.size());
			for (int i = 0; i < keys.size(); i++) {
				command[2 + i] = keys.get(i);
			}
			System.arraycopy(args, 0, command, 2 + keys.size(), args.length);
			this.history.add(command);
			return eval(command);
		}

		private Object eval(String[] command) {
			String script = command[0];
			boolean acquire = script.equals("acquire");
			String ownerDigest = acquire ? LockOwners.digest(command[2 + 5]) : null;
			Object heldBefore = acquire ? redis.server().command("HGET", LOCK, "owner") : null;
			Object readBefore = acquire ? redis.server().command("ZSCORE", READERS, ownerDigest) : null;
			List<String> full = new ArrayList<>(List.of("EVAL", text(script)));
			for (int i = 1; i < command.length; i++) {
				full.add(command[i]);
			}
			Object reply = redis.server().command(full.toArray(String[]::new));
			if (acquire && ((Long) ((List<?>) reply).get(0)) == 1 && !ownerDigest.equals(heldBefore)
					&& readBefore != null) {
				long after = ScriptEval.serverMillis(redis.server());
				if (Double.parseDouble(String.valueOf(readBefore)) > after) {
					this.upgrade = "fresh write hold of " + ownerDigest + " while its read lease was live";
				}
			}
			return reply;
		}

		private String check() {
			if (!this.upgrade.isEmpty()) {
				return this.upgrade;
			}
			return String.valueOf(redis.server().command("EVAL", CHECK, "2", LOCK, READERS));
		}

		private String text(String script) {
			LuaScript<?> lua = switch (script) {
				case "acquire" -> LockScripts.ACQUIRE;
				case "acquire-read" -> LockScripts.ACQUIRE_READ;
				case "acquire-all" -> LockScripts.ACQUIRE_ALL;
				case "release" -> LockScripts.RELEASE;
				case "release-read" -> LockScripts.RELEASE_READ;
				case "extend" -> LockScripts.EXTEND;
				case "extend-read" -> LockScripts.EXTEND_READ;
				case "force-release" -> LockScripts.FORCE_RELEASE;
				case "drop-intent" -> LockScripts.DROP_INTENT;
				default -> throw new IllegalArgumentException(script);
			};
			String text = new String(lua.text(), StandardCharsets.UTF_8);
			return this.patch.apply(script, text);
		}

		private String lease() {
			return List.of("15", "40", "120", "1000").get(this.random.nextInt(4));
		}

		private String readLease() {
			return List.of("10", "25", "60").get(this.random.nextInt(3));
		}

		private String claim() {
			return List.of("20", "60", "200").get(this.random.nextInt(3));
		}

		private String bit(int oneInTen) {
			return (this.random.nextInt(10) < oneInTen) ? "1" : "0";
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		private static String string(Object reply) {
			return (reply != null) ? String.valueOf(reply) : null;
		}

	}

	/** A process's caller of one owner, as a writer or a reader. */
	private static final class Actor {

		final String owner;

		final boolean reader;

		final String process;

		final List<String[]> holds = new ArrayList<>();

		final List<String> requests = new ArrayList<>();

		String hold;

		String request = "";

		boolean heldBack;

		Actor(String owner, boolean reader, String process) {
			this.owner = owner;
			this.reader = reader;
			this.process = process + (reader ? "r" : "w");
		}

	}

}
