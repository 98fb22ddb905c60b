package io.github.distributedlock.leader;

import io.github.distributedlock.LeaseLossPolicy;
import io.github.distributedlock.section.InterruptibleSection;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * One run of a leader-only method inside a term. With {@link LeaseLossPolicy#INTERRUPT},
 * the term's revocation interrupts the thread while it is inside, never once it has left,
 * as {@link InterruptibleSection} describes.
 */
final class LeaderSection {

	private static final ThreadLocal<@Nullable LeaderTerm> CURRENT = new ThreadLocal<>();

	private final InterruptibleSection section = new InterruptibleSection();

	private final LeaderTerm term;

	private final LeaseLossPolicy policy;

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
			this.section.leave();
		}
		finally {
			this.term.left(this);
		}
	}

	/**
	 * Interrupt the worker if it is still inside.
	 */
	void trip() {
		this.section.trip();
	}

}
