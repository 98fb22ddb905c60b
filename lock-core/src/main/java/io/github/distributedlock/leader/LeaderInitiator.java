package io.github.distributedlock.leader;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;
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

	private static final Log logger = LogFactory.getLog(LeaderInitiator.class);

	private final LockTemplate lockTemplate;

	private final Candidate candidate;

	private final LeaderTimings timings;

	private final LockRequest request;

	private final Object monitor = new Object();

	private @Nullable ApplicationEventPublisher publisher;

	private int phase = DEFAULT_PHASE;

	private boolean autoStartup = true;

	// Guarded by monitor.
	private boolean running;

	private @Nullable Thread thread;

	private volatile @Nullable LeaderTerm term;

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
		this.lockTemplate = Objects.requireNonNull(lockTemplate, "lockTemplate must not be null");
		this.candidate = Objects.requireNonNull(candidate, "candidate must not be null");
		this.timings = Objects.requireNonNull(timings, "timings must not be null");
		// Owned by the election thread, which takes no other hold of it: a reply lost on
		// the way is taken over by its next attempt instead of waiting out the lease.
		this.request = LockRequest.builder(LOCK_SCOPE)
			.key(candidate.getRole())
			.lease(timings.lease())
			.autoRenew(true)
			.waitTime(timings.waitTime())
			.reentrant(true)
			.origin("leader election of " + candidate.getId())
			.build();
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
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
		return Optional.ofNullable(this.term);
	}

	/**
	 * Return whether this instance leads the role now.
	 * @return whether it leads
	 */
	public boolean isLeader() {
		LeaderTerm current = this.term;
		return current != null && current.isLeader();
	}

	/**
	 * Give up the current term, if any; this instance contends again a wait time later.
	 */
	public void yieldLeadership() {
		LeaderTerm current = this.term;
		if (current != null) {
			current.yieldLeadership();
		}
	}

	@Nullable LeaderTerm currentTerm() {
		return this.term;
	}

	@Override
	public void start() {
		synchronized (this.monitor) {
			if (this.running) {
				return;
			}
			this.running = true;
			Thread election = new Thread(this::run, "leader-" + getRole());
			election.setDaemon(true);
			this.thread = election;
			election.start();
		}
	}

	/**
	 * Stop contending: a term in progress is revoked at once and its lock released once
	 * the leader-only sections have ended (up to one lease). Returns when that is done.
	 */
	@Override
	public void stop() {
		Thread election;
		synchronized (this.monitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			election = this.thread;
			this.thread = null;
			LeaderTerm current = this.term;
			if (current != null) {
				current.request(RevokeReason.STOPPED);
			}
			else if (election != null) {
				// Waiting for the lock or pausing: only then is the thread interrupted.
				election.interrupt();
			}
		}
		if (election != null && election != Thread.currentThread()) {
			join(election);
		}
	}

	private void join(Thread election) {
		Duration bound = this.timings.lease().multipliedBy(2).plus(this.timings.waitTime());
		try {
			election.join(bound.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (election.isAlive()) {
			logger.warn("Leader role '" + getRole() + "': the election thread did not end within " + bound);
		}
	}

	@Override
	public boolean isRunning() {
		synchronized (this.monitor) {
			return this.running;
		}
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

	private boolean isStopping() {
		synchronized (this.monitor) {
			return !this.running || this.thread != Thread.currentThread();
		}
	}

	private void run() {
		try {
			while (!isStopping()) {
				LockHandle handle = attempt();
				if (handle != null && lead(handle) == RevokeReason.YIELDED) {
					// Let a waiting peer take its turn before contending again.
					pause(this.timings.waitTime());
				}
			}
		}
		finally {
			Thread.interrupted();
		}
	}

	private @Nullable LockHandle attempt() {
		try {
			return this.lockTemplate.tryAcquire(this.request).orElse(null);
		}
		catch (LockInterruptedException ex) {
			return null;
		}
		catch (LockAccessException ex) {
			logger.debug("Leader role '" + getRole() + "': Redis could not be reached; trying again in "
					+ this.timings.retryInterval(), ex);
		}
		catch (RuntimeException ex) {
			logger.warn("Leader role '" + getRole() + "': taking the lock failed; trying again in "
					+ this.timings.retryInterval(), ex);
		}
		pause(this.timings.retryInterval());
		return null;
	}

	private @Nullable RevokeReason lead(LockHandle handle) {
		LeaderTerm current = new LeaderTerm(getRole(), this.candidate.getId(), handle, this.timings.revokeMargin());
		synchronized (this.monitor) {
			if (!this.running || this.thread != Thread.currentThread()) {
				release(current);
				return null;
			}
			this.term = current;
		}
		logger.info("Leader role '" + getRole() + "': " + this.candidate.getId() + " leads, fencing token "
				+ current.fencingToken());
		callback(() -> this.candidate.onGranted(current), "onGranted");
		publish(new OnGrantedEvent(this, current));
		RevokeReason reason = current.awaitEnd();
		for (LeaderSection section : current.revoke()) {
			section.trip();
		}
		logger.info("Leader role '" + getRole() + "': " + this.candidate.getId() + " no longer leads (" + reason
				+ "), fencing token " + current.fencingToken());
		callback(() -> this.candidate.onRevoked(current), "onRevoked");
		publish(new OnRevokedEvent(this, current, reason));
		if (reason == RevokeReason.YIELDED || reason == RevokeReason.STOPPED) {
			// Still held and renewed: the next leader must not overlap the work in
			// progress.
			if (!current.awaitSections(this.timings.lease())) {
				logger.warn("Leader role '" + getRole() + "': releasing while leader-only methods still run");
			}
		}
		this.term = null;
		release(current);
		return reason;
	}

	private void release(LeaderTerm ended) {
		// An interrupt meant for the wait must not cut the release short.
		boolean interrupted = Thread.interrupted();
		try {
			ended.handle().close();
		}
		catch (LockException ex) {
			// Lost or unreachable: the lease ends it.
			logger.debug("Leader role '" + getRole() + "': releasing the lock failed", ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void callback(Runnable callback, String what) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Leader role '" + getRole() + "': the candidate's " + what + " failed", ex);
		}
	}

	private void publish(ApplicationEvent event) {
		ApplicationEventPublisher current = this.publisher;
		if (current == null) {
			return;
		}
		try {
			current.publishEvent(event);
		}
		catch (RuntimeException ex) {
			logger.warn("Leader role '" + getRole() + "': a listener of " + event + " failed", ex);
		}
	}

	private void pause(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			// Stopping: the loop looks at the state next.
		}
	}

	@Override
	public String toString() {
		return "LeaderInitiator[role=" + getRole() + ", candidate=" + this.candidate.getId() + "]";
	}

}
