package io.github.distributedlock.redis.script;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;

import org.jspecify.annotations.Nullable;

/**
 * The arguments of one of the engine's Lua scripts: one record per script (or pair of
 * scripts), named after it, whose components are, in order, the script's {@code ARGV}, as
 * its {@code -- ARGV:} header names them in snake_case. A list component is a group
 * repeated once per lock; a {@code @Nullable} last component is left off when
 * {@code null}. {@link Acquire} and {@link Release} also leave off trailing arguments at
 * the value the script reads when they are absent (each argument costs Redis work:
 * docs/design/cost.md).
 * <p>
 * Components mean the same in every record: {@code owner} the owner id, {@code hold} the
 * hold's id (the same for each attempt of one acquisition), {@code token} its fencing
 * token, {@code leaseMs} the (new) lease, {@code keepMs} what is left of its minimum hold
 * (0 for none), {@code fenceIdleMs} the idle time after which the fencing counter may
 * vanish, {@code request} the caller's request in the lock's line ({@code ""} for none),
 * {@code requestTtlMs} how long the requests set lives after the last filing. A
 * withdrawal ({@link Release} with a withdrawn request) sends {@code ""}, 0, {@code ""}
 * as owner, token and hold, which the script ignores.
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
	 * Take a lock, take it again (reentrant), or report who has it; {@code mayHaveIntent}
	 * and {@code holdsIt} are those of {@code core.Acquisition.Attempt}.
	 *
	 * @param waitMs how long the caller will keep waiting (-1 indefinitely, 0 sets no
	 * writer intent)
	 * @param block how many fencing tokens it asks for: 1, but for a cohort's opening
	 */
	record Acquire(String owner, String hold, long leaseMs, long waitMs, String request, long requestTtlMs,
			boolean mayHaveIntent, boolean holdsIt, boolean reentrant, long fenceIdleMs,
			int block) implements ScriptArgs {

		public Acquire {
			if (block < 1 || block > CohortLimits.MAX_HOLDERS) {
				throw new IllegalArgumentException(
						"a block of tokens is 1 to " + CohortLimits.MAX_HOLDERS + ", not " + block);
			}
		}

		@Override
		public List<String> argv() {
			List<String> argv = List.of(this.owner, this.hold, number(this.leaseMs), number(this.waitMs), this.request,
					number(this.requestTtlMs), flag(this.mayHaveIntent), flag(this.holdsIt), flag(this.reentrant),
					number(this.fenceIdleMs), number(this.block));
			return argv.subList(0, sent());
		}

		/**
		 * Return how many arguments to send: the first four, then the optional ones up to
		 * the last one not at its default. The request comes first, so that a waiter's
		 * attempts send five. The script reads {@code requestTtlMs} only with a request,
		 * and {@code reentrant} only with a re-entry.
		 */
		private int sent() {
			if (this.block != 1) {
				return 11;
			}
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
	 * goes; or withdraw a waiter's request.
	 *
	 * @param handOff whether the last release reserves the lock for the oldest request
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

	/** Lengthen a hold's lease, for its owner only; it never shortens one. */
	record Extend(String owner, long token, String hold, long leaseMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, number(this.token), this.hold, number(this.leaseMs));
		}

	}

	/** Take a read lock, shared with other readers and excluded by a writer. */
	record AcquireRead(String owner, String hold, long leaseMs, boolean reentrant, long fenceIdleMs, String request,
			long requestTtlMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.leaseMs), flag(this.reentrant), number(this.fenceIdleMs),
					this.request, number(this.requestTtlMs));
		}

	}

	/**
	 * Release a read hold, waking a writer when the last reader leaves, or give a permit
	 * back, waking a waiter; both keep the member taken for what is left of its minimum
	 * hold.
	 */
	record ReleaseMember(String owner, String hold, long keepMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.keepMs));
		}

	}

	/**
	 * Lengthen the lease of a read hold or a permit, for its holder only; it never moves
	 * an end earlier.
	 */
	record ExtendMember(String owner, String hold, long leaseMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.leaseMs));
		}

	}

	/** Take one of a semaphore's permits, each with its own lease. */
	record AcquirePermit(String owner, String hold, long leaseMs, int permits, long fenceIdleMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold, number(this.leaseMs), number(this.permits), number(this.fenceIdleMs));
		}

	}

	/**
	 * Take a fair lock in arrival order: only the first live waiter of its queue may.
	 *
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

	/** Release one hold of a fair lock; the last hold wakes only the next waiter. */
	record ReleaseFair(String owner, long token, String hold, long keepMs) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, number(this.token), this.hold, number(this.keepMs));
		}

	}

	/**
	 * Leave a fair lock's queue, waking the new head if the lock is free.
	 *
	 * @param hold the hold the waiting acquisition asked for: each has a place of its own
	 */
	record LeaveFair(String owner, String hold) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner, this.hold);
		}

	}

	/**
	 * Check whether an owner's member of a lease-scored sorted set, a reader or a permit,
	 * still holds it.
	 *
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
	 * Take several locks at once, all or nothing.
	 *
	 * @param request the caller's request, filed with the lock that blocks
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
	 * Renew the leases of many holds in one round trip, the watchdog's batch.
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

		record Renewal(String owner, long token, String hold, long leaseMs) {

		}

	}

	/** Read who holds a lock, with its token, remaining lease and one hold. */
	record ReadHold() implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of();
		}

	}

	/**
	 * Delete a lock whoever holds it, and wake its waiters.
	 *
	 * @param token the fencing token of the hold to force out, compared as text
	 */
	record ForceRelease(String token) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.token);
		}

	}

	/** Drop a writer's own intent as it stops waiting without the lock. */
	record DropIntent(String owner) implements ScriptArgs {

		@Override
		public List<String> argv() {
			return List.of(this.owner);
		}

	}

}
