package io.github.distributedlock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * A change of this instance's leadership of a role, published by its
 * {@link LeaderInitiator} on the role's election thread.
 */
public abstract class LeaderEvent extends ApplicationEvent {

	private final LeaderContext context;

	LeaderEvent(Object source, LeaderContext context) {
		super(source);
		this.context = context;
	}

	/**
	 * Return the term that began or ended.
	 * @return the term
	 */
	public LeaderContext getContext() {
		return this.context;
	}

	/**
	 * Return the role.
	 * @return the role
	 */
	public String getRole() {
		return this.context.role();
	}

	/**
	 * Return the id of this instance.
	 * @return the candidate's id
	 */
	public String getInstanceId() {
		return this.context.instanceId();
	}

	/**
	 * Return the fencing token of the term.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.context.fencingToken();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[role=" + getRole() + ", instance=" + getInstanceId() + ", token="
				+ getFencingToken() + "]";
	}

}
