package io.github.distributedlock.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.leader.Candidate;
import io.github.distributedlock.leader.DefaultCandidate;
import io.github.distributedlock.leader.LeaderDirectory;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.LeaderTimings;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * The {@link LeaderInitiator}s of the roles under {@code distributed-lock.leader.roles}
 * and of the {@link Candidate} beans, started and stopped with the context; iterating
 * over it also gives the application's own {@code LeaderInitiator} beans. A role disabled
 * there is one this instance abstains from.
 */
final class ConfiguredLeaderInitiators implements SmartLifecycle, Iterable<LeaderInitiator> {

	private static final String PREFIX = "distributed-lock.leader.";

	private final List<LeaderInitiator> initiators;

	private final Set<String> abstaining;

	private final ObjectProvider<LeaderInitiator> declared;

	private volatile boolean running;

	ConfiguredLeaderInitiators(LockTemplate lockTemplate, DistributedLockProperties.Leader properties,
			List<Candidate> candidates, ObjectProvider<LeaderInitiator> declared, @Nullable LeaderDirectory directory,
			ApplicationEventPublisher publisher) {
		this.declared = declared;
		Map<String, Candidate> byRole = new LinkedHashMap<>();
		for (Candidate candidate : candidates) {
			Candidate other = byRole.put(LeaderInitiator.requireValid(candidate).getRole(), candidate);
			if (other != null) {
				throw new IllegalStateException("Leader role '" + candidate.getRole() + "' has two candidates, " + other
						+ " and " + candidate + "; define one Candidate bean per role");
			}
		}
		String instanceId = instanceId(properties);
		properties.getRoles().forEach((role, settings) -> {
			if (!byRole.containsKey(role)) {
				byRole.put(role, new DefaultCandidate(instanceId, role));
			}
		});
		List<LeaderInitiator> created = new ArrayList<>();
		Set<String> disabled = new TreeSet<>();
		byRole.forEach((role, candidate) -> {
			DistributedLockProperties.Role settings = properties.getRoles().get(role);
			if (settings == null || settings.isEnabled()) {
				LeaderInitiator initiator = new LeaderInitiator(lockTemplate, candidate,
						timings(properties, role, settings));
				initiator.setApplicationEventPublisher(publisher);
				initiator.setLeaderDirectory(directory);
				created.add(initiator);
			}
			else {
				disabled.add(role);
			}
		});
		this.initiators = List.copyOf(created);
		this.abstaining = Collections.unmodifiableSet(disabled);
	}

	/**
	 * Return the roles this instance abstains from: declared with
	 * {@code roles.<role>.enabled=false}.
	 */
	Set<String> abstainingRoles() {
		return this.abstaining;
	}

	private static String instanceId(DistributedLockProperties.Leader properties) {
		String configured = properties.getInstanceId();
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			host = "localhost";
		}
		return host + ":" + ProcessHandle.current().pid();
	}

	private static LeaderTimings timings(DistributedLockProperties.Leader properties, String role,
			DistributedLockProperties.@Nullable Role settings) {
		String own = PREFIX + "roles." + role + ".";
		Duration lease = properties.getLease();
		String leaseProperty = PREFIX + "lease";
		if (settings != null && settings.getLease() != null) {
			lease = settings.getLease();
			leaseProperty = own + "lease";
		}
		Duration margin = properties.getRevokeMargin();
		String marginProperty = PREFIX + "revoke-margin";
		if (settings != null && settings.getRevokeMargin() != null) {
			margin = settings.getRevokeMargin();
			marginProperty = own + "revoke-margin";
		}
		requireLease(leaseProperty, lease);
		requireRevokeMargin(marginProperty, margin, role, lease);
		if (properties.getWaitTime().isNegative()) {
			throw new InvalidLockPropertyException(PREFIX + "wait-time", properties.getWaitTime(), "zero or more");
		}
		if (properties.getRetryInterval().compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidLockPropertyException(PREFIX + "retry-interval", properties.getRetryInterval(),
					"at least 1ms");
		}
		return new LeaderTimings(lease, margin, properties.getWaitTime(), properties.getRetryInterval());
	}

	/**
	 * Refuse a lease that leaves no room for a renewal beside a positive revoke margin
	 * ({@link LeaderTimings}).
	 */
	private static void requireLease(String property, Duration lease) {
		if (!LockRequest.isValidLease(lease) || lease.compareTo(LeaderTimings.MIN_LEASE) <= 0) {
			throw new InvalidLockPropertyException(property, LockPropertiesCheck.describe(lease),
					"longer than " + LockPropertiesCheck.describe(LeaderTimings.MIN_LEASE) + " and at most "
							+ LockRequest.MAX_LEASE.toDays() + "d (the watchdog renews a leader's lease when two "
							+ "thirds of it are left, and a renewal needs "
							+ LockPropertiesCheck.describe(LeaderTimings.RENEWAL_ROOM)
							+ " from then before a positive revoke margin)");
		}
	}

	/**
	 * Refuse a revoke margin that is not positive, or that leaves a renewal too little
	 * time before the revocation ({@link LeaderTimings}).
	 */
	private static void requireRevokeMargin(String property, Duration margin, String role, Duration lease) {
		Duration maxMargin = LeaderTimings.maxRevokeMargin(lease);
		if (margin.compareTo(Duration.ZERO) > 0 && margin.multipliedBy(2).compareTo(lease) < 0
				&& margin.compareTo(maxMargin) <= 0) {
			return;
		}
		String leaseOfRole = "the lease of role '" + role + "' (" + LockPropertiesCheck.describe(lease) + ")";
		// Half the lease is the tighter bound from a 600 ms lease on.
		String bound = (maxMargin.multipliedBy(2).compareTo(lease) >= 0) ? "less than half " + leaseOfRole
				: "at most " + LockPropertiesCheck.describe(maxMargin) + ", two thirds of " + leaseOfRole + " less "
						+ LockPropertiesCheck.describe(LeaderTimings.RENEWAL_ROOM);
		throw new InvalidLockPropertyException(property, LockPropertiesCheck.describe(margin),
				"more than 0 and " + bound + " (with none, a leader is revoked only once another may lead; the "
						+ "watchdog renews when two thirds of the lease are left, and a renewal needs "
						+ LockPropertiesCheck.describe(LeaderTimings.RENEWAL_ROOM) + " from then before the "
						+ "revocation)");
	}

	@Override
	public Iterator<LeaderInitiator> iterator() {
		return Stream.concat(this.initiators.stream(), this.declared.orderedStream()).iterator();
	}

	@Override
	public void start() {
		this.initiators.forEach(LeaderInitiator::start);
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.initiators.forEach(LeaderInitiator::stop);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return LeaderInitiator.DEFAULT_PHASE;
	}

}
