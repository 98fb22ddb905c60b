package io.github.distributedlock.redis.driver;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LeaseEnd;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * A re-entry of the caller that holds a lock under a cohort (docs/design/cohorting.md,
 * rule 7): the caller acquires again as the cohort's owner, which Redis records, and says
 * it holds the lock. The re-entry counts as in flight from {@link #start} to its end
 * ({@link Cohort#tryReenter}), so that no pass falls between. The template runs the
 * acquisition with {@link #owner()} and ends it with {@link #granted} or {@link #failed},
 * or has {@link #acquisition} do both.
 */
public final class CohortReentry {

	private final LocalLines lines;

	private final LockSpec spec;

	private final String caller;

	private final Cohort holding;

	private CohortReentry(LocalLines lines, LockSpec spec, String caller, Cohort holding) {
		this.lines = lines;
		this.spec = spec;
		this.caller = caller;
		this.holding = holding;
	}

	/**
	 * Start the caller's re-entry under the lock's cohort, if the caller is its holder
	 * and the lock exclusive.
	 * @return the re-entry, or {@code null} if the caller acquires as itself
	 */
	public static @Nullable CohortReentry start(LocalLines lines, LockSpec spec, String caller) {
		Cohort holding = lines.cohorts().current(spec.lockKey());
		if (holding == null || spec.kind() != LockKind.EXCLUSIVE || !holding.tryReenter(caller)) {
			return null;
		}
		return new CohortReentry(lines, spec, caller, holding);
	}

	/** Return the owner the re-entry acquires as: the cohort's. */
	public String owner() {
		return this.holding.owner();
	}

	/**
	 * Return, unstarted, the re-entry's acquisition: the one {@code run} makes, which
	 * acquires as {@link #owner()} and tells the given completion. This re-entry ends
	 * with it ({@link #granted}, {@link #failed}), or with a cancel while it runs.
	 * @param run makes the acquisition, given the completion it tells
	 */
	public Acquiring acquisition(Function<Completion<Grant>, Acquiring> run, Completion<Grant> completion) {
		Acquiring acquiring = run.apply(Completion.of((grant) -> completion.granted(granted(grant)), (error) -> {
			failed(error instanceof LockTimeoutException);
			completion.failed(error);
		}));
		AtomicBoolean stopped = new AtomicBoolean();
		return new Acquiring() {

			@Override
			public void start() {
				acquiring.start();
			}

			@Override
			public boolean cancel() {
				// A run cancelled twice says so twice; the re-entry ends once.
				boolean running = acquiring.cancel();
				if (running && stopped.compareAndSet(false, true)) {
					failed(false);
				}
				return running;
			}

		};
	}

	/**
	 * The re-entry's acquisition was granted. A grant of the cohort's hold is one more
	 * local hold of the cohort and shows the holder's token. Any other grant means the
	 * cohort's hold is gone (rule 8): the cohort ends, and the new hold taken under its
	 * owner becomes the lock's cohort, passing nothing, so that the caller's re-entries
	 * still find their owner.
	 * @return the grant the caller gets
	 */
	public Grant granted(Grant grant) {
		Cohort holding = this.holding;
		if (grant.token() != holding.firstToken()) {
			holding.reentryEnded(true);
			this.lines.cohortEnded(this.spec.lockKey(), holding);
			Cohort adopted = this.lines.cohorts()
				.adopt(this.spec.lockKey(), grant.owner(), grant.token(), grant.sentNanos(),
						new LeaseEnd(grant.sentNanos(), this.spec.leaseMillis()));
			adopted.openedBy(this.caller, null);
			return grant.openedCohort(adopted);
		}
		holding.leaseEnd().confirmed(grant.sentNanos(), this.spec.leaseMillis());
		holding.reentered();
		return new Grant(this.spec, grant.owner(), grant.token(), grant.hold(), grant.sentNanos(), grant.waited(),
				grant.waitedFor(), grant.attempts(), holding.shownToken(), holding);
	}

	/**
	 * The re-entry's acquisition ended without a grant. No pass from now on; the cohort
	 * stays the lock's while its holder's other holds live, so that their re-entries
	 * still find their owner.
	 * @param answered whether Redis answered it (a refusal or the wait time), so that
	 * nothing it sent can still add a hold
	 */
	public void failed(boolean answered) {
		this.holding.reentryEnded(answered);
		this.lines.stopPasses(this.spec.lockKey(), this.holding);
	}

}
