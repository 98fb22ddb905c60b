package io.github.distributedlock.leader;

import java.util.Objects;
import java.util.Optional;

import io.github.distributedlock.LockTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

/**
 * Contends for the leadership of one role on a {@link LockTemplate}, for one
 * {@link Candidate}, as Spring Integration's {@code LockRegistryLeaderInitiator}: while
 * running, a thread of its own tries to take the role's lock ({@code leader:<role>}),
 * holds it, renewed by the watchdog, while this instance leads, and revokes leadership
 * when it is yielded, stopped, found lost, or when no renewal got through until the
 * revoke margin before the lease's end, by the local clock.
 * <p>
 * On a grant it calls {@link Candidate#onGranted} and publishes an
 * {@link OnGrantedEvent}; on a revocation it stops new {@link LeaderOnly @LeaderOnly}
 * sections, interrupts those that ask for it, calls {@link Candidate#onRevoked},
 * publishes an {@link OnRevokedEvent}, waits (up to one lease) for the other sections to
 * end when the lock is still held, and releases the lock. Redis failures never stop it:
 * it tries again every retry interval.
 * <p>
 * A {@link SmartLifecycle} in a late phase: it starts after the other beans and stops,
 * yielding at once, before them. Thread-safe.
 */
public final class LeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {

	/**
	 * The default phase, Spring Integration's: started last, stopped first.
	 */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 1000;

	/**
	 * The scope of the roles' locks; the role is the key.
	 */
	public static final String LOCK_SCOPE = "leader";

	private final Candidate candidate;

	private final LeaderTimings timings;

	private final Election election;

	private int phase = DEFAULT_PHASE;

	private boolean autoStartup = true;

	/**
	 * Create an initiator with {@link LeaderTimings#STANDARD} timings.
	 * @param lockTemplate the template that holds the role's lock
	 * @param candidate the candidate
	 */
	public LeaderInitiator(LockTemplate lockTemplate, Candidate candidate) {
		this(lockTemplate, candidate, LeaderTimings.STANDARD);
	}

	/**
	 * Create an initiator.
	 * @param lockTemplate the template that holds the role's lock
	 * @param candidate the candidate
	 * @param timings the lease, revoke margin, wait time and retry interval
	 */
	public LeaderInitiator(LockTemplate lockTemplate, Candidate candidate, LeaderTimings timings) {
		Objects.requireNonNull(lockTemplate, "lockTemplate must not be null");
		this.candidate = requireValid(candidate);
		this.timings = Objects.requireNonNull(timings, "timings must not be null");
		this.election = new Election(lockTemplate, candidate, timings, this);
	}

	/**
	 * Check that a candidate can contend: its role and id are neither null nor blank. The
	 * constructor checks it too.
	 * @param candidate the candidate
	 * @return the candidate
	 * @throws InvalidCandidateException if it cannot contend
	 */
	public static Candidate requireValid(Candidate candidate) {
		Objects.requireNonNull(candidate, "candidate must not be null");
		requireText(candidate, candidate.getRole(), "getRole()");
		requireText(candidate, candidate.getId(), "getId()");
		return candidate;
	}

	private static void requireText(Candidate candidate, @Nullable String value, String method) {
		if (value == null) {
			throw new InvalidCandidateException(candidate, method + " returned null");
		}
		if (value.isBlank()) {
			throw new InvalidCandidateException(candidate, method + " returned a blank string");
		}
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.election.publishTo(publisher);
	}

	/**
	 * Set where each granted term publishes who leads, for the other instances to read;
	 * none by default.
	 * @param directory the directory, or {@code null} for none
	 */
	public void setLeaderDirectory(@Nullable LeaderDirectory directory) {
		this.election.publishTo(directory);
	}

	/**
	 * Set the lifecycle phase, {@link #DEFAULT_PHASE} by default.
	 * @param phase the phase
	 */
	public void setPhase(int phase) {
		this.phase = phase;
	}

	/**
	 * Set whether to start with the application context, {@code true} by default.
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Return the role contended for.
	 * @return the role
	 */
	public String getRole() {
		return this.candidate.getRole();
	}

	/**
	 * Return the candidate.
	 * @return the candidate
	 */
	public Candidate getCandidate() {
		return this.candidate;
	}

	/**
	 * Return the timings.
	 * @return the timings
	 */
	public LeaderTimings getTimings() {
		return this.timings;
	}

	/**
	 * Return the current term, if this instance leads the role or its term is ending.
	 * Check {@link LeaderContext#isLeader()} before acting on it.
	 * @return the current term, or empty
	 */
	public Optional<LeaderContext> getContext() {
		return Optional.ofNullable(this.election.currentTerm());
	}

	/**
	 * Return whether this instance leads the role now.
	 * @return whether it leads
	 */
	public boolean isLeader() {
		LeaderTerm current = this.election.currentTerm();
		return current != null && current.isLeader();
	}

	/**
	 * Give up the current term, if any; this instance contends again a wait time later.
	 */
	public void yieldLeadership() {
		LeaderTerm current = this.election.currentTerm();
		if (current != null) {
			current.yieldLeadership();
		}
	}

	@Nullable LeaderTerm currentTerm() {
		return this.election.currentTerm();
	}

	@Override
	public void start() {
		this.election.start();
	}

	/**
	 * Stop contending: a term in progress is revoked at once and its lock released once
	 * the leader-only sections have ended (up to one lease). Returns when that is done.
	 */
	@Override
	public void stop() {
		this.election.stop();
	}

	@Override
	public boolean isRunning() {
		return this.election.isRunning();
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

	@Override
	public String toString() {
		return "LeaderInitiator[role=" + getRole() + ", candidate=" + this.candidate.getId() + "]";
	}

}
