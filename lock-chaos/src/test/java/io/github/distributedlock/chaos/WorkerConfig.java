package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What one worker JVM does, passed to it as {@code name=value} arguments.
 *
 * @param name the worker's name, unique in the run
 * @param redis where the worker connects: {@code host:port} (its proxy), or
 * {@code sentinel:master@host:port,...}
 * @param storePort the port of the {@link FencedStore}
 * @param keys the lock keys, in scope {@code chaos}
 * @param threads the threads taking locks
 * @param leaseMillis the lease of every lock
 * @param waitMillis the wait time of every acquisition
 * @param holdMinMillis the shortest critical section
 * @param holdMaxMillis the longest critical section
 * @param commandTimeoutMillis the Redis command timeout
 * @param replicaAcknowledgements replicas that must acknowledge each acquisition (Redis
 * {@code WAIT}), 0 for none
 * @param seed the seed of the worker's random choices
 * @param owner the custom owner every acquisition names ({@code LockRequest.owner}),
 * shared by every worker given the same one, or {@code ""} for the calling thread
 * @param autoRenew whether the watchdog renews the leases ({@code LockRequest.autoRenew})
 * @param cohortHolders how many holders a cohort of the worker's threads may pass a hold
 * to in memory ({@code RedisLockTemplateBuilder.cohorts}), 1 for cohorts off
 * @param cohortMillis a cohort's time limit, with cohorts on
 */
record WorkerConfig(String name, String redis, int storePort, List<String> keys, int threads, long leaseMillis,
		long waitMillis, long holdMinMillis, long holdMaxMillis, long commandTimeoutMillis, int replicaAcknowledgements,
		long seed, String owner, boolean autoRenew, int cohortHolders, long cohortMillis) {

	static final String SCOPE = "chaos";

	/**
	 * The cohorts {@code -Dchaos.cohorts=on} turns on: up to 64 holders within 20 ms of
	 * the hold taken from Redis, the limits planned as the default.
	 */
	static final int SWITCHED_COHORT_HOLDERS = 64;

	static final long SWITCHED_COHORT_MILLIS = 20;

	WorkerConfig(String name, String redis, int storePort, List<String> keys, int threads, long leaseMillis,
			long waitMillis, long holdMinMillis, long holdMaxMillis, long commandTimeoutMillis,
			int replicaAcknowledgements, long seed) {
		this(name, redis, storePort, keys, threads, leaseMillis, waitMillis, holdMinMillis, holdMaxMillis,
				commandTimeoutMillis, replicaAcknowledgements, seed, "", false, 1, 0);
	}

	WorkerConfig withName(String name, long seed) {
		return new WorkerConfig(name, this.redis, this.storePort, this.keys, this.threads, this.leaseMillis,
				this.waitMillis, this.holdMinMillis, this.holdMaxMillis, this.commandTimeoutMillis,
				this.replicaAcknowledgements, seed, this.owner, this.autoRenew, this.cohortHolders, this.cohortMillis);
	}

	WorkerConfig withRedis(String redis) {
		return new WorkerConfig(this.name, redis, this.storePort, this.keys, this.threads, this.leaseMillis,
				this.waitMillis, this.holdMinMillis, this.holdMaxMillis, this.commandTimeoutMillis,
				this.replicaAcknowledgements, this.seed, this.owner, this.autoRenew, this.cohortHolders,
				this.cohortMillis);
	}

	/**
	 * Have every acquisition name this custom owner, shared with every other worker given
	 * it.
	 */
	WorkerConfig withOwner(String owner) {
		return new WorkerConfig(this.name, this.redis, this.storePort, this.keys, this.threads, this.leaseMillis,
				this.waitMillis, this.holdMinMillis, this.holdMaxMillis, this.commandTimeoutMillis,
				this.replicaAcknowledgements, this.seed, owner, this.autoRenew, this.cohortHolders, this.cohortMillis);
	}

	/**
	 * Have the watchdog renew every lease.
	 */
	WorkerConfig withAutoRenew() {
		return new WorkerConfig(this.name, this.redis, this.storePort, this.keys, this.threads, this.leaseMillis,
				this.waitMillis, this.holdMinMillis, this.holdMaxMillis, this.commandTimeoutMillis,
				this.replicaAcknowledgements, this.seed, this.owner, true, this.cohortHolders, this.cohortMillis);
	}

	/**
	 * Have the worker's threads pass holds in memory, in cohorts of up to {@code holders}
	 * within {@code millis} (docs/design/cohorting.md).
	 */
	WorkerConfig withCohorts(int holders, long millis) {
		return new WorkerConfig(this.name, this.redis, this.storePort, this.keys, this.threads, this.leaseMillis,
				this.waitMillis, this.holdMinMillis, this.holdMaxMillis, this.commandTimeoutMillis,
				this.replicaAcknowledgements, this.seed, this.owner, this.autoRenew, holders, millis);
	}

	/**
	 * With {@code -Dchaos.cohorts=on}, turn cohorts on at the default limits for a worker
	 * that may use them and has them off: its locks are exclusive with hand-off on, so
	 * that takes no custom owner and no replica acknowledgements. The time limit is at
	 * most a third of the lease: a longer one opens no cohort. Otherwise return this
	 * config.
	 */
	WorkerConfig withSwitchedCohorts() {
		boolean mayUseCohorts = this.owner.isEmpty() && this.replicaAcknowledgements == 0;
		if (!"on".equals(System.getProperty("chaos.cohorts")) || !mayUseCohorts || this.cohortHolders > 1) {
			return this;
		}
		return withCohorts(SWITCHED_COHORT_HOLDERS, Math.min(SWITCHED_COHORT_MILLIS, this.leaseMillis / 3));
	}

	List<String> toArgs() {
		Map<String, String> values = new LinkedHashMap<>();
		values.put("name", this.name);
		values.put("redis", this.redis);
		values.put("storePort", Integer.toString(this.storePort));
		values.put("keys", String.join(",", this.keys));
		values.put("threads", Integer.toString(this.threads));
		values.put("leaseMillis", Long.toString(this.leaseMillis));
		values.put("waitMillis", Long.toString(this.waitMillis));
		values.put("holdMinMillis", Long.toString(this.holdMinMillis));
		values.put("holdMaxMillis", Long.toString(this.holdMaxMillis));
		values.put("commandTimeoutMillis", Long.toString(this.commandTimeoutMillis));
		values.put("replicaAcknowledgements", Integer.toString(this.replicaAcknowledgements));
		values.put("seed", Long.toString(this.seed));
		values.put("owner", this.owner);
		values.put("autoRenew", Boolean.toString(this.autoRenew));
		values.put("cohortHolders", Integer.toString(this.cohortHolders));
		values.put("cohortMillis", Long.toString(this.cohortMillis));
		List<String> args = new ArrayList<>();
		values.forEach((name, value) -> args.add(name + "=" + value));
		return args;
	}

	static WorkerConfig parse(String[] args) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			values.put(arg.substring(0, equals), arg.substring(equals + 1));
		}
		return new WorkerConfig(values.get("name"), values.get("redis"), Integer.parseInt(values.get("storePort")),
				List.of(values.get("keys").split(",")), Integer.parseInt(values.get("threads")),
				Long.parseLong(values.get("leaseMillis")), Long.parseLong(values.get("waitMillis")),
				Long.parseLong(values.get("holdMinMillis")), Long.parseLong(values.get("holdMaxMillis")),
				Long.parseLong(values.get("commandTimeoutMillis")),
				Integer.parseInt(values.get("replicaAcknowledgements")), Long.parseLong(values.get("seed")),
				values.getOrDefault("owner", ""), Boolean.parseBoolean(values.getOrDefault("autoRenew", "false")),
				Integer.parseInt(values.getOrDefault("cohortHolders", "1")),
				Long.parseLong(values.getOrDefault("cohortMillis", "0")));
	}

	/**
	 * Create the connection factory an application would, with this worker's command
	 * timeout.
	 */
	LettuceConnectionFactory connectionFactory() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofMillis(this.commandTimeoutMillis))
			.build();
		LettuceConnectionFactory factory;
		if (this.redis.startsWith("sentinel:")) {
			String spec = this.redis.substring("sentinel:".length());
			int at = spec.indexOf('@');
			RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
			sentinel.master(spec.substring(0, at));
			for (String address : spec.substring(at + 1).split(",")) {
				int colon = address.lastIndexOf(':');
				sentinel.sentinel(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
			}
			factory = new LettuceConnectionFactory(sentinel, client);
		}
		else {
			int colon = this.redis.lastIndexOf(':');
			factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(this.redis.substring(0, colon),
					Integer.parseInt(this.redis.substring(colon + 1))), client);
		}
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
