package io.github.distributedlock.leader;

/**
 * Why a term of leadership ended.
 */
public enum RevokeReason {

	/**
	 * The leader gave leadership up ({@link LeaderContext#yieldLeadership()}).
	 */
	YIELDED,

	/**
	 * The initiator stopped, usually because the application context closes.
	 */
	STOPPED,

	/**
	 * A renewal found the lock gone or taken by another owner.
	 */
	LOST,

	/**
	 * No renewal got through in time: the lease was within the revoke margin of its end,
	 * by the local clock (Redis unreachable, or this process paused).
	 */
	EXPIRING

}
