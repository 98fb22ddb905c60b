package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplateBuilder;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Checks the bound {@link DistributedLockProperties} against the limits of the lock
 * engine, so that a bad value fails startup with the name of its property rather than
 * with the engine's message about a builder argument.
 */
final class LockPropertiesCheck {

	private static final String PREFIX = "distributed-lock.";

	private LockPropertiesCheck() {
	}

	/**
	 * Check the properties.
	 * @param properties the bound properties
	 * @throws InvalidLockPropertyException for the first invalid value
	 */
	static void check(DistributedLockProperties properties) {
		String prefix = properties.getKeyPrefix();
		if (prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new InvalidLockPropertyException(PREFIX + "key-prefix", prefix,
					"non-empty and without " + "'{' or '}' (braces would move locks to another Redis Cluster slot)");
		}
		if (!LockRequest.isValidLease(properties.getLease())) {
			throw new InvalidLockPropertyException(PREFIX + "lease", properties.getLease(),
					"between 1ms and " + LockRequest.MAX_LEASE.toDays() + "d");
		}
		notNegative("wait-time", properties.getWaitTime());
		notNegative("subscription-linger", properties.getSubscriptionLinger());
		Duration interval = properties.getPolling().getInterval();
		if (interval.compareTo(Duration.ofMillis(1)) < 0 || interval.compareTo(Duration.ofDays(1)) > 0) {
			throw new InvalidLockPropertyException(PREFIX + "polling.interval", interval, "between 1ms and 1d");
		}
		atLeast("fair.waiter-timeout", properties.getFair().getWaiterTimeout(), Duration.ofMillis(30), "30ms");
		int replicas = properties.getReplicaAcknowledgements().getReplicas();
		if (replicas < 0) {
			throw new InvalidLockPropertyException(PREFIX + "replica-acknowledgements.replicas", replicas,
					"zero or more (0 turns replica acknowledgements off)");
		}
	}

	/**
	 * Check the cohort properties: refuse a value the engine would refuse, and, where
	 * cohorts are asked for ({@code cohorts.enabled=true}), settings under which they
	 * would never pass a lock. Left unset, cohorts are on only where they can be, and a
	 * default lease under three times {@code max-time} only means that such locks are
	 * never passed.
	 * @param properties the bound properties
	 * @throws InvalidLockPropertyException for the first invalid value
	 */
	static void checkCohorts(DistributedLockProperties properties) {
		DistributedLockProperties.Cohorts cohorts = properties.getCohorts();
		if (!properties.cohortsOn()) {
			return;
		}
		boolean asked = Boolean.TRUE.equals(cohorts.getEnabled());
		if (properties.getReplicaAcknowledgements().getReplicas() > 0) {
			throw new InvalidLockPropertyException(PREFIX + "cohorts.enabled", true,
					"false while replica-acknowledgements.replicas is above 0 (a lock passed in memory writes "
							+ "nothing that a replica could acknowledge)");
		}
		if (!properties.isHandOff()) {
			throw new InvalidLockPropertyException(PREFIX + "cohorts.enabled", true,
					"false while hand-off is false (a cohort passes the lock to the head of a line, and "
							+ "without hand-off waiters do not line up)");
		}
		int holders = cohorts.getMaxHolders();
		if (holders < 2 || holders > RedisLockTemplateBuilder.MAX_COHORT_HOLDERS) {
			throw new InvalidLockPropertyException(PREFIX + "cohorts.max-holders", holders,
					"between 2 and " + RedisLockTemplateBuilder.MAX_COHORT_HOLDERS);
		}
		Duration time = cohorts.getMaxTime();
		Duration lease = Duration.ofMillis(properties.getLease().toMillis());
		if (asked && (time.compareTo(Duration.ofMillis(1)) < 0
				|| time.multipliedBy(RedisLockTemplateBuilder.COHORT_LEASE_PER_TIME).compareTo(lease) > 0)) {
			throw new InvalidLockPropertyException(PREFIX + "cohorts.max-time", describe(time),
					"between 1ms and a third of distributed-lock.lease, " + describe(lease)
							+ " (a lock taken with a lease under three times max-time is never passed)");
		}
		if (time.compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidLockPropertyException(PREFIX + "cohorts.max-time", describe(time), "at least 1ms");
		}
	}

	/**
	 * Check the cap on the reconnect delay of the application's Lettuce client.
	 * @param properties the bound properties
	 * @throws InvalidLockPropertyException for an invalid value
	 */
	/**
	 * Check that the replica check's {@code WAIT} ends before the client gives up on it:
	 * {@code WAIT} holds its connection for up to its timeout, and Lettuce fails a
	 * command at its command timeout, so a timeout at or above it turns every refusal
	 * (too few replicas) into a Redis timeout.
	 * @param factory the template's connection factory
	 * @throws InvalidLockPropertyException if the timeout is not below the command
	 * timeout
	 */
	static void checkReplicaTimeout(DistributedLockProperties properties, Object factory) {
		Duration timeout = properties.getReplicaAcknowledgements().getTimeout();
		if (properties.getReplicaAcknowledgements().getReplicas() > 0
				&& factory instanceof LettuceConnectionFactory lettuce) {
			Duration commandTimeout = lettuce.getClientConfiguration().getCommandTimeout();
			if (timeout.compareTo(commandTimeout) >= 0) {
				throw new InvalidLockPropertyException(PREFIX + "replica-acknowledgements.timeout", timeout,
						"below the connection's command timeout (spring.data.redis.timeout), "
								+ describe(commandTimeout) + ": WAIT holds its connection that long, and the "
								+ "client gives up on a command at its command timeout, so a refusal would read as "
								+ "a Redis timeout");
			}
		}
	}

	static void checkReconnectDelay(DistributedLockProperties properties) {
		atLeast("reconnect-delay.max", properties.getReconnectDelay().getMax(), Duration.ofMillis(1), "1ms");
	}

	private static void notNegative(String name, Duration value) {
		if (value.isNegative()) {
			throw new InvalidLockPropertyException(PREFIX + name, value, "zero or more");
		}
	}

	private static void atLeast(String name, Duration value, Duration minimum, String described) {
		if (value.compareTo(minimum) < 0) {
			throw new InvalidLockPropertyException(PREFIX + name, value, "at least " + described);
		}
	}

	/** Say a duration as a property is written: {@code 30s}, {@code 20ms}. */
	static String describe(Duration duration) {
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}
