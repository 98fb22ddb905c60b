package io.github.distributedlock.leader;

import java.time.Duration;

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

/**
 * The election thread of one role: contends for the role's lock, runs each term from its
 * grant to its revocation, and releases the lock. Started and stopped by its
 * {@link LeaderInitiator}; thread-safe.
 */
final class Election {

	private static final Log logger = LogFactory.getLog(LeaderInitiator.class);

	private final LockTemplate lockTemplate;

	private final Candidate candidate;

	private final LeaderTimings timings;

	private final LockRequest request;

	private final Object eventSource;

	private final Object monitor = new Object();

	private volatile @Nullable ApplicationEventPublisher publisher;

	private volatile @Nullable LeaderDirectory directory;

	// Guarded by monitor.
	private boolean running;

	private @Nullable Thread thread;

	private volatile @Nullable LeaderTerm term;

	Election(LockTemplate lockTemplate, Candidate candidate, LeaderTimings timings, Object eventSource) {
		this.lockTemplate = lockTemplate;
		this.candidate = candidate;
		this.timings = timings;
		this.eventSource = eventSource;
		// Owned by the election thread, which takes no other hold of it: a reply lost on
		// the way is taken over by its next attempt instead of waiting out the lease.
		this.request = LockRequest.builder(LeaderInitiator.LOCK_SCOPE)
			.key(candidate.getRole())
			.lease(timings.lease())
			.autoRenew(true)
			.waitTime(timings.waitTime())
			.reentrant(true)
			.origin("leader election of " + candidate.getId())
			.build();
	}

	void publishTo(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	void publishTo(@Nullable LeaderDirectory directory) {
		this.directory = directory;
	}

	@Nullable LeaderTerm currentTerm() {
		return this.term;
	}

	void start() {
		synchronized (this.monitor) {
			if (this.running) {
				return;
			}
			this.running = true;
			Thread election = new Thread(this::run, "leader-" + role());
			election.setDaemon(true);
			this.thread = election;
			election.start();
		}
	}

	void stop() {
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

	boolean isRunning() {
		synchronized (this.monitor) {
			return this.running;
		}
	}

	private String role() {
		return this.candidate.getRole();
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
			logger.warn("Leader role '" + role() + "': the election thread did not end within " + bound);
		}
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
			logger.debug("Leader role '" + role() + "': Redis could not be reached; trying again in "
					+ this.timings.retryInterval(), ex);
		}
		catch (RuntimeException ex) {
			logger.warn("Leader role '" + role() + "': taking the lock failed; trying again in "
					+ this.timings.retryInterval(), ex);
		}
		pause(this.timings.retryInterval());
		return null;
	}

	private @Nullable RevokeReason lead(LockHandle handle) {
		LeaderTerm current = new LeaderTerm(role(), this.candidate.getId(), handle, this.timings.revokeMargin());
		synchronized (this.monitor) {
			if (!this.running || this.thread != Thread.currentThread()) {
				release(current);
				return null;
			}
			this.term = current;
		}
		logger.info("Leader role '" + role() + "': " + this.candidate.getId() + " leads, fencing token "
				+ current.fencingToken());
		announce(current);
		callback(() -> this.candidate.onGranted(current), "onGranted");
		publish(new OnGrantedEvent(this.eventSource, current));
		RevokeReason reason = current.awaitEnd();
		for (LeaderSection section : current.revoke()) {
			section.trip();
		}
		logger.info("Leader role '" + role() + "': " + this.candidate.getId() + " no longer leads (" + reason
				+ "), fencing token " + current.fencingToken());
		callback(() -> this.candidate.onRevoked(current), "onRevoked");
		publish(new OnRevokedEvent(this.eventSource, current, reason));
		if (reason == RevokeReason.YIELDED || reason == RevokeReason.STOPPED) {
			// Still held and renewed: the next leader must not overlap the work in
			// progress.
			if (!current.awaitSections(this.timings.lease())) {
				logger.warn("Leader role '" + role() + "': releasing while leader-only methods still run");
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
			logger.debug("Leader role '" + role() + "': releasing the lock failed", ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void announce(LeaderTerm current) {
		LeaderDirectory target = this.directory;
		if (target == null) {
			return;
		}
		try {
			// Returns at once: the writes run on the directory's thread, never on this
			// one.
			target.publish(current, this.timings.lease());
		}
		catch (RuntimeException ex) {
			logger.warn("Leader role '" + role() + "': publishing the leader failed", ex);
		}
	}

	private void callback(Runnable callback, String what) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Leader role '" + role() + "': the candidate's " + what + " failed", ex);
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
			logger.warn("Leader role '" + role() + "': a listener of " + event + " failed", ex);
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

}
