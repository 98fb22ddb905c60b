package io.github.distributedlock.section;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The thread that runs a section, which another thread may interrupt while the thread is
 * inside, and never once it has left.
 * <p>
 * The interrupt and the section's end race for one state: the thread leaves only if no
 * interrupt has begun, and an interrupt begins only while the thread is inside. A thread
 * that loses the race waits, inside, until the interrupt has been delivered, and then
 * clears it, so that its interrupt status is as it was when the work began. An interrupt
 * that someone else sent first is left alone.
 * <p>
 * Internal: shared by the lease-loss interrupt of locked work and by leader-only
 * sections, which live in different packages. Not an API.
 */
public final class InterruptibleSection {

	private static final int INSIDE = 0;

	private static final int INTERRUPTING = 1;

	private static final int TRIPPED = 2;

	private static final int LEFT = 3;

	private final AtomicInteger state = new AtomicInteger(INSIDE);

	private final Thread worker = Thread.currentThread();

	// Written before TRIPPED is set and read after it is seen, so it needs no volatile.
	private boolean interrupted;

	/**
	 * Enter a section on the calling thread.
	 */
	public InterruptibleSection() {
	}

	/**
	 * Return whether the thread is inside and no interrupt has begun.
	 * @return whether the section is still running untripped
	 */
	public boolean isInside() {
		return this.state.get() == INSIDE;
	}

	/**
	 * Interrupt the thread if it is still inside; from any thread, at most once.
	 */
	public void trip() {
		if (!this.state.compareAndSet(INSIDE, INTERRUPTING)) {
			return;
		}
		try {
			if (!this.worker.isInterrupted()) {
				this.interrupted = true;
				this.worker.interrupt();
			}
		}
		finally {
			this.state.set(TRIPPED);
		}
	}

	/**
	 * End the section, on the thread that entered it.
	 * @return whether the section was tripped before it ended
	 */
	public boolean leave() {
		if (this.state.compareAndSet(INSIDE, LEFT)) {
			return false;
		}
		while (this.state.get() == INTERRUPTING) {
			Thread.onSpinWait();
		}
		if (this.interrupted) {
			// The thread leaves the section as it entered it.
			Thread.interrupted();
		}
		return true;
	}

}
