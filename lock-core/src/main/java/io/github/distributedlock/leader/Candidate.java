package io.github.distributedlock.leader;

/**
 * A contender for the leadership of one role, told when it is granted and revoked, as
 * Spring Integration's {@code Candidate}.
 * <p>
 * Both callbacks run on the role's election thread, which also watches the lease: they
 * must return quickly and hand long work to another thread (or use
 * {@link LeaderOnly @LeaderOnly} methods). An exception they throw is logged and ignored.
 */
public interface Candidate {

	/**
	 * Return the role this candidate contends for.
	 * @return the role, non-blank
	 */
	String getRole();

	/**
	 * Return the id of this instance, shown to operators and carried by the events.
	 * @return the id, non-blank
	 */
	String getId();

	/**
	 * Leadership was granted: from now until {@link #onRevoked(LeaderContext)}, this
	 * instance leads the role.
	 * @param context the term that began
	 */
	void onGranted(LeaderContext context);

	/**
	 * Leadership was revoked: yielded, stopped, or about to be lost with the lease.
	 * Called before the lock is released, and before the lease can have ended.
	 * @param context the term that ended
	 */
	void onRevoked(LeaderContext context);

}
