package io.github.distributedlock.redis.script;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;

import org.jspecify.annotations.Nullable;

/**
 * The arguments of one of the engine's Lua scripts: one record per script, whose
 * components, in order, are the script's {@code ARGV}. A record is the one declaration of
 * that order; the script's {@code -- ARGV:} header names the same components in
 * snake_case, as {@code LockScriptsTests} checks. A list component is a group repeated
 * once per lock, and a {@code @Nullable} last component is an optional argument that is
 * left off when {@code null}. {@link Acquire} and {@link Release} also leave off trailing
 * arguments that all have the value the script reads when they are absent (each argument
 * costs Redis work before the script runs: docs/design/cost.md). Flags go to Redis as
 * {@code '1'} or {@code '0'}, numbers as decimal strings.
 */
public sealed interface ScriptArgs {

	/**
	 * Return the values the script reads as {@code ARGV}, in order.
	 */
	List<String> argv();

	private static String flag(boolean value) {
		return value ? "1" : "0";
	}

	private static String number(long value) {
		return Long.toString(value);
	}

	/**
	 * Take a lock, take it again (reentrant), or report who has it ({@code acquire.lua}).
	 *
	 * @param owner the owner id
	 * @param hold the id of the hold this acquisition takes, the same for each attempt
	 * @param leaseMs the lease
	 * @param waitMs how long the caller will keep waiting (-1 indefinitely, 0 sets no
	 * writer intent)
	 * @param request the caller's request in the lock's line, or {@code ""} for none
	 * @param requestTtlMs how long the requests set lives after the last filing
	 * @param mayHaveIntent whether an earlier attempt may have set the writer intent
	 * @param holdsIt whether the caller already holds the lock (a real re-entry)
	 * @param reentrant whether the owner may take the lock again
	 * @param fenceIdleMs the idle time after which the fencing counter may vanish
	 */
	record Acquire(String owner, String hold, long leaseMs, long waitMs, String request, long requestTtlMs,
			boolean mayHaveIntent, boolean holdsIt, boolean reentrant, long fenceIdleMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			List<String> argv = List.of(this.owner, this.hold, number(this.leaseMs), number(this.waitMs), this.request,
					number(this.requestTtlMs), flag(this.mayHaveIntent), flag(this.holdsIt), flag(this.reentrant),
					number(this.fenceIdleMs));
			return argv.subList(0, sent());
		}

		/**
		 * Return how many arguments to send: the first four, then the optional ones only
		 * as far as the last one not at the value the script reads when it is left off.
		 * The request comes first, so that a waiter's attempts (two per contended
		 * acquisition) send five. The request's time to live counts only with a request,
		 * and whether the owner may take the lock again only with a re-entry: without
		 * them, the script never reads either.
		 */
		private int sent() {
			if (this.fenceIdleMs != LockKeys.FENCE_IDLE_MILLIS) {
				return 10;
			}
			if (!this.reentrant && this.holdsIt) {
				return 9;
			}
			if (this.holdsIt) {
				return 8;
			}
			if (this.mayHaveIntent) {
				return 7;
			}
			if (this.request.isEmpty()) {
				return 4;
			}
			return (this.requestTtlMs != HandOffRequest.VALIDITY_MILLIS) ? 6 : 5;
		}

	}

	/**
	 * Release one hold of a lock, reserving it for the oldest request when the last hold
	 * goes; or withdraw a waiter's request ({@code release.lua}).
	 *
	 * @param owner the owner id ({@code ""} for a withdrawal)
	 * @param token the hold's fencing token (ignored for a withdrawal)
	 * @param hold the hold's id ({@code ""} for a withdrawal)
	 * @param handOff whether the last release reserves the lock for the oldest request
	 * @param keepMs what is left of the hold's minimum hold (0 for none)
	 * @param withdrawnRequest the request of a waiter that gives up, or {@code null} to
	 * release a hold
	 */
	record Release(String owner, long token, String hold, boolean handOff, long keepMs,
			@Nullable String withdrawnRequest) implements ScriptArgs {

		@Override
		public List<String> argv() {
			if (this.withdrawnRequest == null && this.handOff && this.keepMs == 0) {
				// Left off, hand_off and keep_ms are read as these defaults.
				return List.of(this.owner, number(this.token), this.hold);
			}
			List<String> argv = List.of(this.owner, number(this.token), this.hold, flag(this.handOff),
					number(this.keepMs));
			if (this.withdrawnRequest == null) {
				return argv;
			}
			List<String> withdrawal = new ArrayList<>(argv);
			withdrawal.add(this.withdrawnRequest);
			return withdrawal;
		}

	}

	/**
	 * Lengthen the lease of a hold of a lock, for its owner only; it never shortens a
	 * lease ({@code extend.lua}).
	 *
	 * @param owner the owner id
	 * @param token the hold's fencing token
	 * @param hold the hold's id
	 * @param leaseMs the new lease
	 */
	record Extend(String owner, long token, String hold, long leaseMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, number(this.token), this.hold, number(this.leaseMs));
		}

	}

	/**
	 * Take a read lock, shared with other readers and excluded by a writer
	 * ({@code acquire-read.lua}).
	 *
	 * @param owner the owner id
	 * @param hold the id of the hold this acquisition takes, the same for each attempt
	 * @param leaseMs the lease
	 * @param reentrant whether the owner may take it again
	 * @param fenceIdleMs the idle time after which the fencing counter may vanish
	 * @param request the caller's request in the lock's line, or {@code ""} for none
	 * @param requestTtlMs how long the requests set lives after the last filing
	 */
	record AcquireRead(String owner, String hold, long leaseMs, boolean reentrant, long fenceIdleMs, String request,
			long requestTtlMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.leaseMs), flag(this.reentrant), number(this.fenceIdleMs),
					this.request, number(this.requestTtlMs));
		}

	}

	/**
	 * Release one read hold, waking a waiting writer when the last reader leaves
	 * ({@code release-read.lua}); or give a permit back and wake a waiter
	 * ({@code release-permit.lua}). Both keep the member taken for what is left of its
	 * minimum hold.
	 *
	 * @param owner the owner id
	 * @param hold the hold's id
	 * @param keepMs what is left of the hold's minimum hold (0 for none)
	 */
	record ReleaseMember(String owner, String hold, long keepMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.keepMs));
		}

	}

	/**
	 * Lengthen the lease of a read hold ({@code extend-read.lua}) or a permit
	 * ({@code extend-permit.lua}), for its holder only; it never moves an end earlier.
	 *
	 * @param owner the owner id
	 * @param hold the hold's id
	 * @param leaseMs the new lease
	 */
	record ExtendMember(String owner, String hold, long leaseMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.leaseMs));
		}

	}

	/**
	 * Take one of the permits of a semaphore, each with its own lease
	 * ({@code acquire-permit.lua}).
	 *
	 * @param owner the owner id
	 * @param hold the id of the permit this acquisition takes, the same for each attempt
	 * @param leaseMs the lease
	 * @param permits the number of permits
	 * @param fenceIdleMs the idle time after which the fencing counter may vanish
	 */
	record AcquirePermit(String owner, String hold, long leaseMs, int permits, long fenceIdleMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.leaseMs), number(this.permits), number(this.fenceIdleMs));
		}

	}

	/**
	 * Take a fair lock in arrival order: only the first live waiter of its queue may
	 * ({@code acquire-fair.lua}).
	 *
	 * @param owner the owner id
	 * @param hold the id of the hold this acquisition takes, the same for each attempt
	 * @param leaseMs the lease
	 * @param reentrant whether the owner may take the lock again
	 * @param fenceIdleMs the idle time after which the fencing counter may vanish
	 * @param waiterTimeoutMs how long a waiter that stops calling keeps its place
	 * @param join whether to join the queue when it is not our turn, rather than try once
	 */
	record AcquireFair(String owner, String hold, long leaseMs, boolean reentrant, long fenceIdleMs,
			long waiterTimeoutMs, boolean join) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.leaseMs), flag(this.reentrant), number(this.fenceIdleMs),
					number(this.waiterTimeoutMs), flag(this.join));
		}

	}

	/**
	 * Release one hold of a fair lock; the last hold wakes only the next waiter
	 * ({@code release-fair.lua}).
	 *
	 * @param owner the owner id
	 * @param token the hold's fencing token
	 * @param hold the hold's id
	 * @param keepMs what is left of the hold's minimum hold (0 for none)
	 */
	record ReleaseFair(String owner, long token, String hold, long keepMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, number(this.token), this.hold, number(this.keepMs));
		}

	}

	/**
	 * Leave a fair lock's queue after giving up, waking the new head if the lock is free
	 * ({@code leave-fair.lua}).
	 *
	 * @param owner the owner id
	 */
	record LeaveFair(String owner) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner);
		}

	}

	/**
	 * Check whether an owner's member of a lease-scored sorted set, a reader or a permit,
	 * still holds it ({@code held-member.lua}).
	 *
	 * @param owner the owner id
	 * @param suffix what follows the owner's digest in the member: {@code ""} for a
	 * reader, {@code "|<hold>"} for a permit
	 */
	record HeldMember(String owner, String suffix) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.suffix);
		}

	}

	/**
	 * Take several locks at once, all or nothing ({@code acquire-all.lua}).
	 *
	 * @param owner the owner id
	 * @param hold the id of the hold this acquisition takes in each lock
	 * @param reentrant whether the owner may take a lock again
	 * @param fenceIdleMs the idle time after which a fencing counter may vanish
	 * @param request the caller's request, filed with the lock that blocks, or {@code ""}
	 * for none
	 * @param requestTtlMs how long a requests set lives after the last filing
	 * @param leaseMs the lease of each lock, in the order of the locks' keys
	 */
	record AcquireAll(String owner, String hold, boolean reentrant, long fenceIdleMs, String request, long requestTtlMs,
			List<Long> leaseMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			List<String> argv = new ArrayList<>(6 + this.leaseMs.size());
			argv.addAll(List.of(this.owner, this.hold, flag(this.reentrant), number(this.fenceIdleMs), this.request,
					number(this.requestTtlMs)));
			for (long lease : this.leaseMs) {
				argv.add(number(lease));
			}
			return argv;
		}

	}

	/**
	 * Renew the leases of many holds in one round trip, the watchdog's batch
	 * ({@code renew.lua}).
	 *
	 * @param renewals one renewal per hold, in the order of the locks' keys
	 */
	record Renew(List<Renewal> renewals) implements ScriptArgs {

		@Override
		public List<String> argv() {
			List<String> argv = new ArrayList<>(4 * this.renewals.size());
			for (Renewal renewal : this.renewals) {
				argv.addAll(
						List.of(renewal.owner(), number(renewal.token()), renewal.hold(), number(renewal.leaseMs())));
			}
			return argv;
		}

		/**
		 * The renewal of one hold.
		 *
		 * @param owner the owner id
		 * @param token the hold's fencing token
		 * @param hold the hold's id
		 * @param leaseMs the new lease
		 */
		record Renewal(String owner, long token, String hold, long leaseMs) {

		}

	}

	/**
	 * Read who holds a lock, with its token, remaining lease and one of its holds, in one
	 * step ({@code read-hold.lua}); it takes no arguments.
	 */
	record ReadHold() implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of();
		}

	}

	/**
	 * Delete a lock whoever holds it, and wake its waiters ({@code force-release.lua}).
	 *
	 * @param token the fencing token of the hold to force out, as the lock hash holds it
	 * (the script compares the two as text)
	 */
	record ForceRelease(String token) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.token);
		}

	}

	/**
	 * Drop a writer's own intent when it stops waiting without the lock
	 * ({@code drop-intent.lua}).
	 *
	 * @param owner the owner id
	 */
	record DropIntent(String owner) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner);
		}

	}

}
