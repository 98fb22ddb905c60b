package io.github.distributedlock.leader;

import java.util.Objects;

/**
 * Published when this instance stops leading a role, after
 * {@link Candidate#onRevoked(LeaderContext)} and before the lock is released. Unless the
 * process was paused past the revoke margin, it is published before the term's lease can
 * have ended.
 */
public class OnRevokedEvent extends LeaderEvent {

	private final RevokeReason reason;

	public OnRevokedEvent(Object source, LeaderContext context, RevokeReason reason) {
		super(source, context);
		this.reason = Objects.requireNonNull(reason, "reason must not be null");
	}

	/**
	 * Return why the term ended.
	 * @return the reason
	 */
	public RevokeReason getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return super.toString().replace("]", ", reason=" + this.reason + "]");
	}

}
