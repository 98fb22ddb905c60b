package io.github.distributedlock.leader;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LeaseLossPolicy;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * One run of a leader-only method inside a term. With {@link LeaseLossPolicy#INTERRUPT},
 * the term's revocation interrupts the thread while it is inside, never once it has left:
 * the interrupt and the end race for one state, and a thread that loses waits, inside,
 * until the interrupt is delivered and then clears it.
 */
final class LeaderSection {

	private static final ThreadLocal<@Nullable LeaderTerm> CURRENT = new ThreadLocal<>();

	private static final int INSIDE = 0;

	private static final int INTERRUPTING = 1;

	private static final int TRIPPED = 2;

	private static final int LEFT = 3;

	private final AtomicInteger state = new AtomicInteger(INSIDE);

	private final LeaderTerm term;

	private final LeaseLossPolicy policy;

	private final Thread worker = Thread.currentThread();

	// Written before TRIPPED is set and read after it is seen.
	private boolean interrupted;

	LeaderSection(LeaderTerm term, LeaseLossPolicy policy) {
		this.term = term;
		this.policy = policy;
	}

	static @Nullable LeaderTerm currentTerm() {
		return CURRENT.get();
	}

	LeaseLossPolicy policy() {
		return this.policy;
	}

	/**
	 * Run the method in this section, on the thread that entered it.
	 */
	@Nullable Object proceed(MethodInvocation invocation) throws Throwable {
		LeaderTerm outer = CURRENT.get();
		CURRENT.set(this.term);
		try {
			return invocation.proceed();
		}
		finally {
			if (outer != null) {
				CURRENT.set(outer);
			}
			else {
				CURRENT.remove();
			}
			leave();
		}
	}

	private void leave() {
		try {
			if (this.state.compareAndSet(INSIDE, LEFT)) {
				return;
			}
			while (this.state.get() == INTERRUPTING) {
				Thread.onSpinWait();
			}
			if (this.interrupted) {
				// The thread leaves the section as it entered it.
				Thread.interrupted();
			}
		}
		finally {
			this.term.left(this);
		}
	}

	/**
	 * Interrupt the worker if it is still inside.
	 */
	void trip() {
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

}
