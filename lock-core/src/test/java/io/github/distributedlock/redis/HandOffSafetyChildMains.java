package io.github.distributedlock.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Main classes run in child JVMs by {@link HandOffSafetyTests}. They talk to Redis
 * through the public API only, plus raw reads of the lock hash.
 */
final class HandOffSafetyChildMains {

	private HandOffSafetyChildMains() {
	}

	/**
	 * Build a connection factory from a spec: {@code standalone:host:port},
	 * {@code sentinel:master:host:port,host:port,...} or {@code cluster:host:port,...}.
	 */
	static LettuceConnectionFactory connect(String spec, Duration timeout) {
		String[] parts = spec.split(":", 2);
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(timeout)
			.clientOptions(ClientOptions.builder()
				.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
				.build())
			.build();
		LettuceConnectionFactory factory;
		switch (parts[0]) {
			case "standalone" -> {
				String[] hostPort = parts[1].split(":");
				factory = new LettuceConnectionFactory(
						new RedisStandaloneConfiguration(hostPort[0], Integer.parseInt(hostPort[1])), client);
			}
			case "sentinel" -> {
				String[] masterAndNodes = parts[1].split(":", 2);
				RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
				configuration.master(masterAndNodes[0]);
				for (String node : masterAndNodes[1].split(",")) {
					String[] hostPort = node.split(":");
					configuration.sentinel(hostPort[0], Integer.parseInt(hostPort[1]));
				}
				factory = new LettuceConnectionFactory(configuration, client);
			}
			case "cluster" -> {
				RedisClusterConfiguration configuration = new RedisClusterConfiguration();
				for (String node : parts[1].split(",")) {
					String[] hostPort = node.split(":");
					configuration.clusterNode(hostPort[0], Integer.parseInt(hostPort[1]));
				}
				factory = new LettuceConnectionFactory(configuration, client);
			}
			default -> throw new IllegalArgumentException("Unknown connection spec " + spec);
		}
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Waits for one lock and reports what Redis records right after {@code acquire()}
	 * returned, then holds it until a file exists, and releases it.
	 * <p>
	 * Arguments: connectionSpec scope key owner('-' for the thread) waitMillis
	 * leaseMillis releaseFile.
	 * <p>
	 * Prints {@code WAITING <pid>}, then {@code ACQUIRED <nanoTime> <token> <redisToken>
	 * <redisHolds> <redisPttl>} (or {@code FAILED <exception>}), then {@code RELEASED
	 * <nanoTime>} or {@code RELEASE-FAILED <nanoTime> <exception>}.
	 */
	static final class Waiter {

		public static void main(String[] args) throws Exception {
			LettuceConnectionFactory factory = connect(args[0], RedisConnections.CHILD_TIMEOUT);
			RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
			StringRedisTemplate raw = new StringRedisTemplate(factory);
			String scope = args[1];
			String key = args[2];
			String owner = "-".equals(args[3]) ? null : args[3];
			String lockKey = template.lockKey(LockName.of(scope, key));
			Path releaseFile = Path.of(args[6]);
			// Warm up the raw reads, so that the one right after acquire() is a single
			// round trip.
			raw.opsForHash().get(lockKey, "token");
			System.out.println("WAITING " + ProcessHandle.current().pid());
			System.out.flush();
			LockHandle handle;
			try {
				handle = template.acquire(LockRequest.builder(scope)
					.key(key)
					.owner(owner)
					.waitTime(Duration.ofMillis(Long.parseLong(args[4])))
					.lease(Duration.ofMillis(Long.parseLong(args[5])))
					.build());
			}
			catch (RuntimeException ex) {
				System.out.println("FAILED " + ex);
				System.out.flush();
				System.exit(0);
				return;
			}
			long acquiredNanos = System.nanoTime();
			Object redisToken = raw.opsForHash().get(lockKey, "token");
			Object redisHolds = raw.opsForHash().get(lockKey, "holds");
			Long pttl = raw.getExpire(lockKey, java.util.concurrent.TimeUnit.MILLISECONDS);
			System.out.println("ACQUIRED " + acquiredNanos + " " + handle.fencingToken() + " " + redisToken + " "
					+ redisHolds + " " + pttl);
			System.out.flush();
			while (!Files.exists(releaseFile)) {
				Thread.sleep(5);
			}
			try {
				handle.close();
				System.out.println("RELEASED " + System.nanoTime());
			}
			catch (RuntimeException ex) {
				System.out.println("RELEASE-FAILED " + System.nanoTime() + " " + ex);
			}
			System.out.flush();
			template.close();
			factory.destroy();
			System.exit(0);
		}

	}

}
