package io.github.distributedlock.redis.driver;

import java.time.Duration;
import java.util.List;

/**
 * What a multi-lock's handle of either template tells of its holds: its name and token
 * are those of the first lock in acquisition order, its lease the shortest.
 *
 * @param <H> the handle of each lock
 */
public abstract class MultiHoldView<H extends RegisteredHold> extends HoldView {

	private final List<H> handles;

	private final List<LockHold> holds;

	private final Duration waitedFor;

	/**
	 * @param handles each lock's handle, in acquisition order
	 * @param waitedFor how long the whole acquisition took
	 */
	protected MultiHoldView(List<H> handles, Duration waitedFor) {
		this.handles = List.copyOf(handles);
		this.holds = this.handles.stream().map(RegisteredHold::hold).toList();
		this.waitedFor = waitedFor;
	}

	protected final List<H> handles() {
		return this.handles;
	}

	@Override
	protected final List<LockHold> holds() {
		return this.holds;
	}

	@Override
	public Duration waitedFor() {
		return this.waitedFor;
	}

}
