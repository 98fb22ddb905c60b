package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.simulation.ScriptTexts;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Plants bugs of the classes this project has had into the real scripts, and checks that
 * the simulation finds each within a few seeds: the simulator must not silently lose its
 * teeth. Each finding prints its seed and its shrunk trace ({@link FailureShrinker}).
 */
class PlantedBugTests {

	private static final int MAX_SEEDS = 300;

	// How many seeds a planted bug of the replica check is looked for in: a quarter of
	// them check replicas, a quarter of those fail over.
	private static final int REPLICA_SEEDS = 800;

	@Test
	void findsALeaseScoredOneMillisecondShort() {
		assertFound("acquire.lua", "redis.call('PEXPIRE', KEYS[1], ARGV[3])",
				"redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) - 1)");
	}

	@Test
	void findsAReleaseThatSkipsTheOwnerAndHoldChecks() {
		assertFound("release.lua", "local status = check_hold(held, digest(ARGV[1]), token)",
				"local status = held[1] and 0 or -1", "if not held[7] then", "if false then");
	}

	/**
	 * The usual release (the first return of {@code release.lua}) taken although an inner
	 * hold recorded its minimum hold ({@code kept}): the last release frees the lock
	 * before that minimum hold ends. Found by an adversarial read of the usual-case gate,
	 * past the other planted bugs' search: at seed 1326 when the simulation stepped the
	 * core itself, at seed 1444 since it runs the driver, whose undo of a lost attempt
	 * draws other events, at seed 1038 since its holds are the engine's {@code LockHold}
	 * (a re-entry's reply read a second late, its minimum hold then released), at seed
	 * 1065 since its re-entries are the driver's too, and at seed 1590 since an eighth of
	 * the writers' acquisitions are tries, which moves every later draw.
	 */
	@Test
	void findsAUsualReleaseThatForgetsAnInnerHoldsMinimumHold() {
		assertFoundWithin(1_000, "release.lua",
				"if held[3] == '1' and not held[5] and not held[6] and keep_ms == '0' then",
				"if held[3] == '1' and not held[5] and keep_ms == '0' then");
	}

	@Test
	void findsAReleaseThatEndsTheLockWithHoldsLeft() {
		assertFound("release.lua", "if held[3] ~= '1' then", "if false then");
	}

	@Test
	void findsAWithdrawalThatFreesAHold() {
		assertFound("release.lua", "if held[1] ~= '' or ARGV[6] == '' or held[4] ~= ARGV[6] then", "if false then");
	}

	/**
	 * The rule before issue 23's lease fix: the sole hold of a lock set its lease
	 * outright when renewed, so a renewal undid a longer extension.
	 */
	@Test
	void findsARenewalThatSetsTheSoleHoldsLeaseOutright() {
		assertFound("renew.lua", "lengthen_lease(key, ARGV[at])", """
				if tonumber(redis.call('HGET', key, 'holds')) <= 1 then
					redis.call('PEXPIRE', key, ARGV[at])
				else
					lengthen_lease(key, ARGV[at])
				end""");
	}

	/**
	 * The same rule for extensions: a shorter extension of the sole hold, run after a
	 * renewal whose reply is read later, left the holder counting on the renewal's lease.
	 */
	@Test
	void findsAnExtensionThatSetsTheSoleHoldsLeaseOutright() {
		assertFound("extend.lua", "lengthen_lease(KEYS[1], ARGV[4])", """
				if tonumber(redis.call('HGET', KEYS[1], 'holds')) <= 1 then
					redis.call('PEXPIRE', KEYS[1], ARGV[4])
				else
					lengthen_lease(KEYS[1], ARGV[4])
				end""");
	}

	/**
	 * A re-entry that sets the lease it asks for, shortening the outer hold's.
	 */
	@Test
	void findsAReentryThatShortensTheOuterLease() {
		assertFound("acquire.lua", """
				redis.call('HINCRBY', KEYS[1], 'holds', '1')
					-- Another hold never shortens the lease the outer hold relies on.
					lengthen_lease(KEYS[1], ARGV[3])""", """
				redis.call('HINCRBY', KEYS[1], 'holds', '1')
					redis.call('PEXPIRE', KEYS[1], ARGV[3])""");
	}

	/**
	 * A re-entry counted in Redis without its id: a release run twice (re-sent after a
	 * reconnect) counts down twice, and the nested hold's second run frees the outer one.
	 */
	@Test
	void findsAReentryCountedWithoutItsId() {
		assertFound("release.lua", "if not held[7] then", "if false then");
	}

	/**
	 * A reservation that anyone can re-enter: a lock reserved for one waiter's request is
	 * joined by any attempt, as a re-entry of its empty owner.
	 */
	@Test
	void findsAReservationThatAnyoneCanReenter() {
		assertFound("acquire.lua", """
				-- Reserved for another waiter's request (or kept for a minimum hold): taken, for as long
					-- as its claim.
					file_and_mark(KEYS[1], held, KEYS[5], request, request_ttl_ms, waits)
					return {0, tonumber(held[2]), redis.call('PTTL', KEYS[1])}""", """
				-- A reservation joined as if it were a hold of ours.
					redis.call('HSET', KEYS[1], hold, '1')
					redis.call('HINCRBY', KEYS[1], 'holds', '1')
					return {1, tonumber(held[2])}""");
	}

	/**
	 * A reader that ignores a writer holding the lock: it joins the readers beside the
	 * writer's hold.
	 */
	@Test
	void findsAReaderThatIgnoresTheWriter() {
		assertFound("acquire-read.lua", "if held[1] and held[1] ~= owner and not reservedForUs then", "if false then");
	}

	/**
	 * A writer that ignores the readers: it takes the lock while they read.
	 */
	@Test
	void findsAWriterThatIgnoresTheReaders() {
		assertFound("acquire.lua", "if #latest > 0 then", "if false then");
	}

	/**
	 * A read release that ends its owner's read lease with the owner's other holds left:
	 * a shared custom owner's other client still reads on it.
	 */
	@Test
	void findsAReadReleaseThatEndsTheOwnersOtherHolds() {
		assertFound("release-read.lua", "if holds > 0 then", "if false then");
	}

	/**
	 * A read grant that hands out the last token again instead of the next one: the
	 * fencing rule broken for readers.
	 */
	@Test
	void findsAReadGrantThatReusesTheLastToken() {
		assertFound("acquire-read.lua", "local token = next_token(KEYS[2], ARGV[5], nowUs)",
				"local token = redis.call('GET', KEYS[2]) or next_token(KEYS[2], ARGV[5], nowUs)");
	}

	/**
	 * A semaphore that counts one permit too many: N + 1 holders at once.
	 */
	@Test
	void findsAPermitAcquireThatCountsOnePermitTooMany() {
		assertFound("acquire-permit.lua", "redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4])",
				"redis.call('ZCARD', KEYS[1]) > tonumber(ARGV[4])");
	}

	/**
	 * A permit release that removes the permit whose lease ends first, whoever's it is,
	 * instead of its own.
	 */
	@Test
	void findsAPermitReleaseThatRemovesAnotherOwnersPermit() {
		assertFound("release-permit.lua", """
				redis.call('ZREM', KEYS[1], permit)
				-- Drop permits""", """
				redis.call('ZREM', KEYS[1], redis.call('ZRANGE', KEYS[1], 0, 0)[1] or permit)
				-- Drop permits""");
	}

	/**
	 * A permit extension that sets the lease it asks for, shortening a longer one that a
	 * holder counts on (the rule before issue 23's lease fix).
	 */
	@Test
	void findsAPermitExtensionThatShortensTheLease() {
		assertFound("extend-permit.lua", "math.max(ends_after(nowMs, ARGV[3]), tonumber(leaseEnd))",
				"ends_after(nowMs, ARGV[3])");
	}

	/**
	 * A permit grant that hands out the last token again instead of the next one.
	 */
	@Test
	void findsAPermitGrantThatReusesTheLastToken() {
		assertFound("acquire-permit.lua", "return {1, tonumber(next_token(KEYS[2], ARGV[5], nowUs))}",
				"return {1, tonumber(redis.call('GET', KEYS[2]) or next_token(KEYS[2], ARGV[5], nowUs))}");
	}

	/**
	 * A liveness bug: a release that reserves the lock for the next request but tells
	 * nobody. Nothing overlaps; {@link HandOffOrder} finds the reservation nobody was
	 * told of as the release runs, before the waiter sleeps past the bound a run without
	 * faults must keep ({@link HandOffPlantedBugTests} plants it with every fault).
	 */
	@Test
	void findsAReleaseThatTellsNobodyOfTheReservation() {
		String text = ScriptTexts.all().get("release.lua");
		// In lib.lua's pass_on, which release.lua calls.
		String told = "redis.call('PUBLISH', channel, 'reserved:' .. next)";
		assertThat(text).contains(told);
		Map<String, String> planted = Map.of("release.lua", text.replace(told, ""));
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE,
					EnumSet.noneOf(LockSimulation.Fault.class));
			String violation = simulation.run(4, 25);
			long bound = simulation.waitBoundNanos(0);
			if (violation != null) {
				assertThat(violation).contains("a waiter in line is told of its reservation");
				System.out.printf("planted liveness bug in release.lua found: seed %d, %s%n", seed, violation);
				return;
			}
			if (simulation.gaveUp() > 0 || simulation.longestWaitNanos() > bound) {
				fail("seed %d waited %.1f ms (bound %.1f ms) but no oracle named the silent reservation", seed,
						simulation.longestWaitNanos() / 1e6, bound / 1e6);
			}
		}
		fail("no seed within %d found the silent reservation", MAX_SEEDS);
	}

	/**
	 * A liveness bug of permits: a release that gives its permit back but tells nobody.
	 * Nothing overlaps; a waiter sleeps beside the free permit until the lease Redis last
	 * told it of ends, far past the bound a run without faults must keep.
	 */
	@Test
	void findsAPermitReleaseThatTellsNobody() {
		String text = ScriptTexts.all().get("release-permit.lua");
		String told = """
				redis.call('PUBLISH', KEYS[2], 'permit')
				return 0""";
		assertThat(text).endsWith(told + "\n");
		Map<String, String> planted = Map.of("release-permit.lua",
				text.substring(0, text.length() - told.length() - 1) + "return 0\n");
		long bound = LockSimulation.calmFreePermitBoundNanos();
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE,
					EnumSet.noneOf(LockSimulation.Fault.class));
			assertThat(simulation.run(4, 25)).isNull();
			if (simulation.gaveUp() > 0 || simulation.longestFreePermitWaitNanos() > bound) {
				System.out.printf(
						"planted liveness bug in release-permit.lua found: seed %d, %s (bound %.1f ms), "
								+ "%d gave up%n",
						seed, simulation.longestFreePermitWait(), bound / 1e6, simulation.gaveUp());
				return;
			}
		}
		fail("no seed within %d waited past the bound", MAX_SEEDS);
	}

	/**
	 * A liveness bug of cancellation: a waiter cancelled while its attempt was in flight
	 * drops the grant the reply brings instead of releasing it. Nothing overlaps (nobody
	 * counts on the grant), but the lock stays taken until its lease ends, far past the
	 * bound a run without faults must keep.
	 */
	@Test
	void findsACancelledWaiterThatKeepsItsGrant() {
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, Map.of(), LockSimulation.ClientBug.CANCEL_KEEPS_GRANT,
					EnumSet.of(LockSimulation.Fault.CANCEL));
			// Found either way: the kept grant blocks the others past the bound, or its
			// owner's next acquisition finds the hold it forgot (a self-deadlock, which a
			// run reports as a violation; without the plant, no seed reports one).
			String violation = simulation.run(4, 25);
			long bound = simulation.waitBoundNanos(0);
			if (violation != null) {
				System.out.printf("planted cancelled waiter that keeps its grant found: seed %d, %s%n", seed,
						violation);
				return;
			}
			if (simulation.permits() == 0 && (simulation.gaveUp() > 0 || simulation.longestWaitNanos() > bound)) {
				System.out.printf("planted cancelled waiter that keeps its grant found: seed %d, %s (bound %.1f ms), "
						+ "%d gave up%n", seed, simulation.longestWait(), bound / 1e6, simulation.gaveUp());
				return;
			}
		}
		fail("no seed within %d waited past the bound", MAX_SEEDS);
	}

	/**
	 * A cancelled or interrupted waiter that does not withdraw its request: the request
	 * is left in the lock's line once every acquisition has ended.
	 */
	@Test
	void findsACancelledWaiterThatLeavesItsRequest() {
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, Map.of(),
					LockSimulation.ClientBug.CANCEL_SKIPS_WITHDRAWAL, EnumSet.of(LockSimulation.Fault.CANCEL));
			assertThat(simulation.run(4, 25)).isNull();
			List<?> left = simulation.requestsLeft();
			if (!left.isEmpty()) {
				System.out.printf("planted cancelled waiter that leaves its request found: seed %d, left %s%n", seed,
						left);
				return;
			}
		}
		fail("no seed within %d left a request in the line", MAX_SEEDS);
	}

	/**
	 * A handle that counts a renewal's or an extension's lease from when the reply was
	 * read: a reply read late puts the deadline past the lease in Redis.
	 */
	@Test
	void findsAHandleThatCountsLeasesFromTheReply() {
		Found found = firstFailingSeed(Map.of(), LockSimulation.ClientBug.DEADLINE_FROM_REPLY);
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		System.out.println("planted bug in the handle found: " + found.violation + "\n" + found.trace);
	}

	/**
	 * A release that keeps the lock for its minimum hold 1 ms short (in
	 * {@code keep_taken}, which {@code release.lua} runs): the next holder may take it
	 * before the minimum hold ends.
	 */
	@Test
	void findsAReleaseThatKeepsTheLockOneMillisecondShort() {
		assertFound("release.lua", "redis.call('PEXPIRE', lock, keep)", "redis.call('PEXPIRE', lock, keep - 1)");
	}

	/**
	 * A nested hold's release that forgets its minimum hold ({@code note_kept}): the
	 * outer hold's release keeps the lock only for its own, which began earlier.
	 */
	@Test
	void findsANestedReleaseThatForgetsItsMinimumHold() {
		assertFound("release.lua", "		note_kept(KEYS[1], keep_ms, held[6])\n", "");
	}

	/**
	 * A release that ignores what is left of the minimum hold (ARGV[5], keep_ms) and
	 * frees the lock at once.
	 */
	@Test
	void findsAReleaseThatIgnoresTheMinimumHold() {
		assertFound("release.lua", "if keep_taken(KEYS[1], keep_ms, held[6]) then",
				"if keep_taken(KEYS[1], '0', held[6]) then");
	}

	/**
	 * A reader's release that ignores what is left of its minimum hold (ARGV[3] of
	 * {@code release-read.lua}): no {@code kept|} stand-in, so a writer may take the lock
	 * as soon as the last reader leaves.
	 */
	@Test
	void findsAReadReleaseThatIgnoresTheMinimumHold() {
		assertFound("release-read.lua", "local keep = tonumber(ARGV[3])", "local keep = 0");
	}

	/**
	 * A permit's release that ignores what is left of its minimum hold (ARGV[3] of
	 * {@code release-permit.lua}): the permit is free at once, and another holder may
	 * take it before the minimum hold ends.
	 */
	@Test
	void findsAPermitReleaseThatIgnoresTheMinimumHold() {
		assertFound("release-permit.lua", "local keep = tonumber(ARGV[3])", "local keep = 0");
	}

	/**
	 * The direct hand-off, the first protocol's bug: a waiter that takes the message
	 * saying the lock is reserved for it as the grant itself. Only Redis's reply to the
	 * waiter's own attempt makes it a holder.
	 */
	@Test
	void findsAWaiterThatTakesTheReservationMessageAsTheGrant() {
		Found found = firstFailingSeed(Map.of(), LockSimulation.ClientBug.MESSAGE_AS_GRANT);
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		System.out.println("planted direct hand-off found: " + found.violation + "\n" + found.trace);
	}

	/**
	 * The local hand-off done wrong: a release hands the lock to the next waiter of its
	 * own JVM's line without any script granting it. Found only in the runs with two
	 * clients to a JVM.
	 */
	@Test
	void findsALocalHandOffThatRedisNeverGranted() {
		Found found = firstFailingSeed(Map.of(), LockSimulation.ClientBug.LOCAL_HAND_OFF);
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		System.out.println("planted local hand-off found: " + found.violation + "\n" + found.trace);
	}

	/**
	 * A multi-lock script that looks only at the first lock's holder: a later lock held
	 * by another owner is joined as if it were free, and its holder's token granted to
	 * the multi-lock beside it. Found only in the runs with multi-locks taken at once
	 * (seeds 1001 and 1008 take theirs in order, which runs no {@code acquire-all.lua}).
	 */
	@Test
	void findsAMultiLockThatTakesALockHeldByAnother() {
		String script = "acquire-all.lua";
		String text = ScriptTexts.all().get(script);
		String target = "	elseif held[1] then\n		if held[1] ~= owner then";
		assertThat(text).as("the planted bug's target in %s", script).contains(target);
		Found found = firstFailingSeed(
				Map.of(script,
						text.replace(target, "	elseif held[1] and i == 1 then\n		if held[1] ~= owner then")),
				LockSimulation.ClientBug.NONE);
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		assertThat(found.seed).as("the first seed that finds it").isLessThan(1_015);
		System.out.println("planted bug in " + script + " found: " + found.violation + "\n" + found.trace);
	}

	/**
	 * A multi-lock script that ignores the readers of its locks: it takes a lock that
	 * another owner reads. Found only in the runs with multi-locks and a reader.
	 */
	@Test
	void findsAMultiLockThatIgnoresTheReaders() {
		String script = "acquire-all.lua";
		String text = ScriptTexts.all().get(script);
		String target = "if #latest > 0 then";
		assertThat(text).as("the planted bug's target in %s", script).contains(target);
		Found found = firstFailingSeed(Map.of(script, text.replace(target, "if false then")),
				LockSimulation.ClientBug.NONE);
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		System.out.println("planted bug in " + script + " found: " + found.violation + "\n" + found.trace);
	}

	/**
	 * A multi-lock waiter that gives up without withdrawing its request from the lines it
	 * filed it in ({@link MultiAcquisition#filed()}): found by the requests left once the
	 * run is over, in a seed that takes multi-locks at once.
	 */
	@Test
	void findsAMultiLockWaiterThatLeavesItsRequest() {
		for (long seed = 1_000; seed < 1_030; seed++) {
			if (!MultiLockRun.draws(seed) || MultiLockRun.takesInOrder(seed)) {
				continue;
			}
			LockSimulation simulation = new LockSimulation(seed, Map.of(),
					LockSimulation.ClientBug.MULTI_SKIPS_WITHDRAWAL);
			assertThat(simulation.run(4, 25)).isNull();
			List<?> left = simulation.requestsLeft();
			if (!left.isEmpty()) {
				System.out.printf("planted multi-lock waiter that leaves its request found: seed %d, left %s%n", seed,
						left);
				return;
			}
		}
		fail("no seed within 1000-1029 that takes multi-locks at once left a request in the line");
	}

	/**
	 * A multi-lock attempt that leaves the lock that blocks it unmarked
	 * ({@code mark_queued}): the holder's release may then tell nobody, and the waiter
	 * sleeps until the holder's lease ends. Found in runs without faults with two
	 * clients, where no other client's next hold of a quiet lock makes up for it (with
	 * four, none is found within 100 seeds).
	 */
	@Test
	void findsAMultiLockAttemptThatLeavesTheBlockingLockUnmarked() {
		String script = "acquire-all.lua";
		String text = ScriptTexts.all().get(script);
		String target = "mark_queued(KEYS[5 * i - 4], held[4])";
		assertThat(text).as("the planted bug's target in %s", script).contains(target);
		Map<String, String> planted = Map.of(script, text.replace(target, "-- not marked"));
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			if (!MultiLockRun.draws(seed)) {
				continue;
			}
			try {
				LockSimulationTests.calmMultiRun(seed, 2, planted);
			}
			catch (AssertionError found) {
				System.out.printf("planted liveness bug in %s found: seed %d, %s%n", script, seed, found.getMessage());
				return;
			}
		}
		fail("no seed within %d waited for a multi-lock as long as a lease", MAX_SEEDS);
	}

	/**
	 * A batch renewal that lengthens the first lock's lease only, and reports every hold
	 * renewed: the watchdog renews a multi-lock's holds in one batch, so its other locks
	 * lose their lease while their handles count on the renewal. Found only in the runs
	 * with multi-locks (a single lock's renewal is a batch of one).
	 */
	@Test
	void findsABatchRenewalThatRenewsTheFirstLockOnly() {
		assertFoundInMultiLocks("renew.lua", "lengthen_lease(key, ARGV[at])",
				"if i == 1 then lengthen_lease(key, ARGV[at]) end");
	}

	/**
	 * A multi-lock that re-enters a lock its owner holds and sets the lease it asks for,
	 * shortening the outer hold's (extended or renewed) lease. Found only in the runs
	 * with multi-locks.
	 */
	@Test
	void findsAMultiLockReentryThatShortensTheOuterLease() {
		assertFoundInMultiLocks("acquire-all.lua", "		lengthen_lease(lock, lease)\n",
				"		redis.call('PEXPIRE', lock, lease)\n");
	}

	/**
	 * A multi-lock's release that passes what is left of the minimum hold for its first
	 * lock only ({@link LockSimulation.ClientBug#MULTI_KEEPS_FIRST_ONLY}): its other
	 * locks are free at once, and another holder may take one before the minimum hold
	 * ends.
	 */
	@Test
	void findsAMultiLockReleaseThatKeepsTheFirstLockOnly() {
		Found found = firstFailingSeed(Map.of(), LockSimulation.ClientBug.MULTI_KEEPS_FIRST_ONLY);
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		assertThat(MultiLockRun.draws(found.seed)).as("seed %d runs multi-locks", found.seed).isTrue();
		System.out.println("planted multi-lock release that keeps the first lock only found: " + found.violation + "\n"
				+ found.trace);
	}

	/**
	 * A waiter that loses its place in line when its request is filed again: a plain
	 * {@code ZADD} in {@code file_request} (lib.lua) instead of {@code ZADD NX}, so each
	 * attempt of a waiter moves its request to the back of the line. Nothing overlaps,
	 * and a release still reserves for the oldest request in the line as it stands:
	 * {@link LineOrder} finds the request moved.
	 */
	@Test
	void findsAWaiterThatLosesItsPlaceWhenFiledAgain() {
		String target = "redis.call('ZADD', requests, 'NX', now, request)";
		Map<String, String> planted = new java.util.HashMap<>();
		ScriptTexts.all().forEach((script, text) -> {
			if (text.contains(target)) {
				planted.put(script, text.replace(target, "redis.call('ZADD', requests, now, request)"));
			}
		});
		assertThat(planted).as("scripts that file requests").containsKeys("acquire.lua", "acquire-read.lua");
		assertFoundBy(planted, LockSimulation.ClientBug.NONE, "a request keeps its place from its first filing");
	}

	/**
	 * An attempt whose reply was lost and that is never undone
	 * ({@link LockSimulation.ClientBug#LOST_ATTEMPT_NEVER_UNDONE}: the port swallows the
	 * driver's undo): the hold it took waits out its lease, or its owner's next
	 * acquisition. {@link OrphanedHolds} finds it still in Redis once Redis answered its
	 * client again.
	 */
	@Test
	void findsAnAttemptWhoseLostReplyIsNeverUndone() {
		assertFoundBy(Map.of(), LockSimulation.ClientBug.LOST_ATTEMPT_NEVER_UNDONE, "no reply came to its attempt");
	}

	/**
	 * A replica check whose count acknowledges every {@code WAIT}
	 * ({@link LockSimulation.ClientBug#REPLICA_COUNT_IGNORES_LAG}): a hold it confirmed
	 * is lost by a failover to a replica that lacked it. Found only in the runs that
	 * check replicas and fail over while a confirmed hold is live (seed 1597).
	 */
	@Test
	void findsAReplicaCheckThatConfirmsWhatTheReplicaLacks() {
		for (long seed = 1_000; seed < 1_000 + REPLICA_SEEDS; seed++) {
			LockSimulation planted = new LockSimulation(seed, Map.of(),
					LockSimulation.ClientBug.REPLICA_COUNT_IGNORES_LAG);
			if (!planted.replicaChecks()) {
				continue;
			}
			String violation = planted.run(4, 25);
			if (violation == null || !violation.contains("was lost in a failover")) {
				continue;
			}
			String unplanted = new LockSimulation(seed, Map.of(), LockSimulation.ClientBug.NONE).run(4, 25);
			assertThat(unplanted).as("seed %d without the plant", seed).isNull();
			System.out.println("planted bug found: seed " + seed + ", " + violation);
			return;
		}
		fail("no seed within %d that checks replicas found it", REPLICA_SEEDS);
	}

	/**
	 * A replica check whose release of a grant it did not confirm is never sent
	 * ({@link LockSimulation.ClientBug#UNCONFIRMED_NEVER_RELEASED}):
	 * {@link OrphanedHolds} finds the hold still in Redis once Redis answered its client
	 * again.
	 */
	@Test
	void findsAReplicaCheckThatNeverReleasesWhatItRefused() {
		assertFoundBy(Map.of(), LockSimulation.ClientBug.UNCONFIRMED_NEVER_RELEASED, "its replica check");
	}

	/**
	 * A multi-lock taken in order that gives each lock the whole wait time
	 * ({@link LockSimulation.ClientBug#IN_ORDER_FRESH_WAIT}): an attempt sent past the
	 * call's wait time still asks to wait. Found only in the runs that take multi-locks
	 * in order.
	 */
	@Test
	void findsAnInOrderMultiLockThatWaitsTheWholeWaitTimeForEachLock() {
		assertFoundInOrder(LockSimulation.ClientBug.IN_ORDER_FRESH_WAIT, EnumSet.allOf(LockSimulation.Fault.class),
				"sent an attempt that waits");
	}

	/**
	 * A multi-lock taken in order that never asks whether a lock it took first is still
	 * live ({@link LockSimulation.ClientBug#IN_ORDER_GRANTS_LAPSED}, the engine before
	 * b33c3b91): granted with a lock whose lease ran out, or that was lost, while a later
	 * one was waited for.
	 */
	@Test
	void findsAnInOrderMultiLockGrantedWithALapsedLock() {
		assertFoundInOrder(LockSimulation.ClientBug.IN_ORDER_GRANTS_LAPSED, EnumSet.allOf(LockSimulation.Fault.class),
				"was granted, but");
	}

	/**
	 * Assert that a seed within {@link #MAX_SEEDS} fails with a violation that names
	 * {@code found}, where the same seed without the plant does not: only this oracle's
	 * finding of this plant counts, so a seed that fails for another reason is passed
	 * over.
	 */
	private static void assertFoundBy(Map<String, String> scripts, LockSimulation.ClientBug clientBug, String found) {
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			String violation = new LockSimulation(seed, scripts, clientBug).run(4, 25);
			if (violation == null || !violation.contains(found)) {
				continue;
			}
			String unplanted = new LockSimulation(seed, Map.of(), LockSimulation.ClientBug.NONE).run(4, 25);
			if (unplanted != null && unplanted.contains(found)) {
				continue;
			}
			FailureShrinker.Shrunk shrunk = FailureShrinker.shrink(seed, scripts, clientBug, 4, 25);
			assertThat(shrunk).as("seed %d shrunk", seed).isNotNull();
			System.out.println("planted bug found: seed " + seed + ", " + violation + "\n" + shrunk.report());
			return;
		}
		fail("no seed within %d found it: %s", MAX_SEEDS, found);
	}

	/**
	 * Assert that a seed within {@link #MAX_SEEDS} that takes multi-locks in order (the
	 * only seeds a planted bug of {@link InOrderClient} can change) fails with a
	 * violation that names {@code found}, with the given faults, where the same seed
	 * without the plant passes.
	 */
	private static void assertFoundInOrder(LockSimulation.ClientBug clientBug, Set<LockSimulation.Fault> faults,
			String found) {
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			if (!MultiLockRun.takesInOrder(seed)) {
				continue;
			}
			String violation = new LockSimulation(seed, Map.of(), clientBug, faults).run(4, 25);
			if (violation == null || !violation.contains(found)) {
				continue;
			}
			String unplanted = new LockSimulation(seed, Map.of(), LockSimulation.ClientBug.NONE, faults).run(4, 25);
			assertThat(unplanted).as("seed %d without the plant", seed).isNull();
			FailureShrinker.Shrunk shrunk = FailureShrinker.shrink(seed, Map.of(), clientBug, 4, 25, faults);
			assertThat(shrunk).as("seed %d shrunk", seed).isNotNull();
			System.out.println("planted bug found: seed " + seed + ", " + violation + "\n" + shrunk.report());
			return;
		}
		fail("no seed within %d that takes multi-locks in order found it: %s", MAX_SEEDS, found);
	}

	private static void assertFoundInMultiLocks(String script, String target, String replacement) {
		String text = ScriptTexts.all().get(script);
		assertThat(text).as("the planted bug's target in %s", script).contains(target);
		Found found = firstFailingSeed(Map.of(script, text.replace(target, replacement)),
				LockSimulation.ClientBug.NONE);
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		assertThat(MultiLockRun.draws(found.seed)).as("seed %d runs multi-locks", found.seed).isTrue();
		System.out.println("planted bug in " + script + " found: " + found.violation + "\n" + found.trace);
	}

	private static void assertFound(String script, String... replacements) {
		assertFoundWithin(MAX_SEEDS, script, replacements);
	}

	private static void assertFoundWithin(int maxSeeds, String script, String... replacements) {
		String text = ScriptTexts.all().get(script);
		for (int i = 0; i < replacements.length; i += 2) {
			assertThat(text).as("the planted bug's target in %s", script).contains(replacements[i]);
			text = text.replace(replacements[i], replacements[i + 1]);
		}
		Found found = firstFailingSeed(Map.of(script, text), LockSimulation.ClientBug.NONE, maxSeeds);
		assertThat(found).as("a violation within %d seeds", maxSeeds).isNotNull();
		System.out.println("planted bug in " + script + " found: " + found.violation + "\n" + found.trace);
	}

	/**
	 * Find the first failing seed and shrink it: the shrunk run must still fail, with no
	 * more events than the run it came from.
	 */
	private static @Nullable Found firstFailingSeed(Map<String, String> scripts, LockSimulation.ClientBug clientBug) {
		return firstFailingSeed(scripts, clientBug, MAX_SEEDS);
	}

	private static @Nullable Found firstFailingSeed(Map<String, String> scripts, LockSimulation.ClientBug clientBug,
			int maxSeeds) {
		for (long seed = 1_000; seed < 1_000 + maxSeeds; seed++) {
			LockSimulation simulation = new LockSimulation(seed, scripts, clientBug);
			String violation = simulation.run(4, 25);
			if (violation != null) {
				FailureShrinker.Shrunk shrunk = FailureShrinker.shrink(seed, scripts, clientBug, 4, 25);
				assertThat(shrunk).as("seed %d shrunk", seed).isNotNull();
				assertThat(shrunk.events()).hasSizeLessThanOrEqualTo(simulation.events().size());
				return new Found(seed, violation, shrunk.report());
			}
		}
		return null;
	}

	private record Found(long seed, String violation, String trace) {

	}

}
