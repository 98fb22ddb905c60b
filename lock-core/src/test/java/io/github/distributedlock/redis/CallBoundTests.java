package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * "Every call ends within its wait time plus one command timeout", on the paths that run
 * more than one command per call: a multi-lock across a Cluster's hash slots, taken lock
 * by lock, and replica acknowledgements, which run {@code WAIT} after the grant. Redis
 * answers every command late but within the command timeout: a connection of the test
 * sends {@code DEBUG SLEEP} back to back. Whatever the outcome, the call ends in time,
 * and nothing stays held once Redis is fast again.
 */
class CallBoundTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static final long STALL_MILLIS = 900;

	/** What the caller's thread may add to the bound: waking up, a collection. */
	private static final long MARGIN_MILLIS = 400;

	private static final int ROUNDS = 3;

	@Test
	void aMultiLockAcrossHashSlotsEndsWithinItsWaitTimePlusOneCommandTimeout() throws Exception {
		try (RedisProcess node = clusterOfOne();
				Factory connections = new Factory(clusterFactory(node));
				RedisLockTemplate template = RedisLockTemplate.builder(connections.factory()).build()) {
			List<LockRequest> requests = acrossSlots();
			// Scripts loaded and the topology known, before Redis slows down.
			template.acquireAll(requests).close();
			List<AutoCloseable> won = new ArrayList<>();
			try (Stalls stalls = new Stalls(node)) {
				for (int round = 0; round < ROUNDS; round++) {
					assertEndsInTime(500, () -> won.add(template.acquireAll(requests)));
				}
			}
			for (AutoCloseable handle : won) {
				handle.close();
			}
			assertNothingHeld(template, requests);
		}
	}

	@Test
	void aReactiveMultiLockAcrossHashSlotsEndsWithinItsWaitTimePlusOneCommandTimeout() throws Exception {
		try (RedisProcess node = clusterOfOne();
				Factory connections = new Factory(clusterFactory(node));
				ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(connections.factory()).build();
				RedisLockTemplate reader = RedisLockTemplate.builder(connections.factory()).build()) {
			List<LockRequest> requests = acrossSlots();
			template.acquireAll(requests).flatMap((handle) -> handle.release()).block();
			List<ReactiveLockHandle> won = new ArrayList<>();
			try (Stalls stalls = new Stalls(node)) {
				for (int round = 0; round < ROUNDS; round++) {
					assertEndsInTime(500, () -> won.add(template.acquireAll(requests).block()));
				}
			}
			for (ReactiveLockHandle handle : won) {
				handle.release().block();
			}
			assertNothingHeld(reader, requests);
		}
	}

	@Test
	void anAcquisitionWithReplicaAcknowledgementsEndsWithinItsWaitTimePlusOneCommandTimeout() throws Exception {
		try (RedisProcess master = RedisProcess.launch("--enable-debug-command", "yes");
				RedisProcess replica = RedisProcess.launch()) {
			replica.command("REPLICAOF", master.host(), Integer.toString(master.port()));
			await().atMost(Duration.ofSeconds(20))
				.until(() -> String.valueOf(replica.command("INFO", "replication")).contains("master_link_status:up"));
			try (Factory connections = new Factory(
					RedisConnections.standalone(master.host(), master.port(), COMMAND_TIMEOUT));
					RedisLockTemplate template = RedisLockTemplate.builder(connections.factory())
						.replicaAcknowledgements(1, Duration.ofMillis(100))
						.build()) {
				LockRequest request = LockRequest.builder("bound").key("acked").waitTime(Duration.ZERO).build();
				// Warmed up once the replica acknowledged a hold within the 100 ms. On a
				// busy machine the first acknowledgement may take longer, and the
				// template then refuses the hold, as it should.
				await().atMost(Duration.ofSeconds(10))
					.ignoreExceptionsInstanceOf(LockAccessException.class)
					.until(() -> {
						template.acquire(request).close();
						return true;
					});
				List<AutoCloseable> won = new ArrayList<>();
				try (Stalls stalls = new Stalls(master)) {
					for (int round = 0; round < ROUNDS; round++) {
						assertEndsInTime(0, () -> won.add(template.acquire(request)));
					}
				}
				for (AutoCloseable handle : won) {
					handle.close();
				}
				assertNothingHeld(template, List.of(request));
			}
		}
	}

	/**
	 * Run one call, and check that it ended within its wait time plus one command
	 * timeout; a failure is an allowed outcome of a slow Redis, an overrun is not.
	 */
	private static void assertEndsInTime(long waitMillis, Runnable call) {
		long start = System.nanoTime();
		String outcome = "acquired";
		try {
			call.run();
		}
		catch (LockException ex) {
			// Redis was too slow for this call: it may fail, within the bound.
			outcome = ex.toString();
		}
		long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		System.out.println("[call-bound] " + took + " ms: " + outcome);
		assertThat(took)
			.as("milliseconds of a call with wait %d ms and a command timeout of %d ms", waitMillis,
					COMMAND_TIMEOUT.toMillis())
			.isLessThanOrEqualTo(waitMillis + COMMAND_TIMEOUT.toMillis() + MARGIN_MILLIS);
	}

	private static void assertNothingHeld(RedisLockTemplate template, List<LockRequest> requests) {
		for (LockRequest request : requests) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !template.isLocked(request.name().scope(), request.name().key()));
		}
	}

	/** Locks whose keys lie in several hash slots, which no one script may take. */
	private static List<LockRequest> acrossSlots() {
		List<LockRequest> requests = new ArrayList<>();
		for (String key : List.of("a", "b", "c", "d")) {
			requests.add(LockRequest.builder("bound")
				.key(key)
				.lease(Duration.ofSeconds(10))
				.waitTime(Duration.ofMillis(500))
				.build());
		}
		return requests;
	}

	/** A Cluster of one node that serves every slot, and allows {@code DEBUG}. */
	private static RedisProcess clusterOfOne() {
		RedisProcess node = RedisProcess.launch("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
				"--enable-debug-command", "yes");
		List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
		for (int slot = 0; slot < 16384; slot++) {
			addSlots.add(Integer.toString(slot));
		}
		node.command(addSlots.toArray(String[]::new));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> String.valueOf(node.command("CLUSTER", "INFO")).contains("cluster_state:ok"));
		return node;
	}

	private static LettuceConnectionFactory clusterFactory(RedisProcess node) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		configuration.clusterNode(node.host(), node.port());
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private record Factory(LettuceConnectionFactory factory) implements AutoCloseable {

		@Override
		public void close() {
			this.factory.destroy();
		}

	}

	/**
	 * {@code DEBUG SLEEP} sent back to back on a connection of its own, so that every
	 * other command waits up to one sleep, less than the command timeout.
	 */
	private static final class Stalls implements AutoCloseable {

		private volatile boolean stalling = true;

		private final Thread thread;

		Stalls(RedisProcess server) throws InterruptedException {
			Supplier<RespConnection> connect = server::connect;
			this.thread = new Thread(() -> {
				try (RespConnection debug = connect.get()) {
					while (this.stalling) {
						debug.command("DEBUG", "SLEEP", String.format(Locale.ROOT, "%.3f", STALL_MILLIS / 1000.0));
					}
				}
			}, "stalls");
			this.thread.start();
			Thread.sleep(100);
		}

		@Override
		public void close() throws InterruptedException {
			this.stalling = false;
			this.thread.join(5000);
		}

	}

}
