package io.github.distributedlock.leader;

/**
 * Published when this instance becomes the leader of a role, after
 * {@link Candidate#onGranted(LeaderContext)}.
 */
public class OnGrantedEvent extends LeaderEvent {

	public OnGrantedEvent(Object source, LeaderContext context) {
		super(source, context);
	}

}
