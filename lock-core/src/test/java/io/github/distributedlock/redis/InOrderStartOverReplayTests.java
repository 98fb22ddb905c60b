package io.github.distributedlock.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.HashSlots;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A multi-lock taken lock by lock starts over (its first lock's lease ran out while the
 * second was waited for), and one custom owner holds its locks in both rounds: every
 * release Redis ran on them before the grant (the first round's, the stranger's) is run
 * again once the second round holds them, as a release sent again, or one that arrives
 * late, would be. None may end or change a hold of the second round, on either template.
 * The releases are read off {@code MONITOR} on a Cluster of one node.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InOrderStartOverReplayTests {

	private static final Duration LEASE = Duration.ofMillis(300);

	private static final String CALLER = "caller";

	private RedisProcess node;

	private LettuceConnectionFactory connectionFactory;

	private RedisLockTemplate blocking;

	private ReactiveRedisLockTemplate reactive;

	@BeforeAll
	void start() {
		this.node = RedisProcess.launch("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf");
		List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
		for (int slot = 0; slot < 16384; slot++) {
			addSlots.add(Integer.toString(slot));
		}
		this.node.command(addSlots.toArray(String[]::new));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> String.valueOf(this.node.command("CLUSTER", "INFO")).contains("cluster_state:ok"));
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		configuration.clusterNode(this.node.host(), this.node.port());
		this.connectionFactory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.blocking = RedisLockTemplate.builder(this.connectionFactory).build();
		this.reactive = ReactiveRedisLockTemplate.builder(this.connectionFactory).build();
	}

	@AfterAll
	void stop() {
		this.reactive.close();
		this.blocking.close();
		this.connectionFactory.destroy();
		this.node.close();
	}

	@Test
	void shouldKeepABlockingMultiLocksSecondRoundThroughReplayedReleases() throws Exception {
		assertSecondRoundKept("replay-blocking", (requests) -> CompletableFuture.supplyAsync(() -> {
			LockHandle handle = this.blocking.acquireAll(requests);
			return new Granted(handle.locks().get(0).fencingToken(), () -> {
				try {
					handle.close();
				}
				catch (LockLeaseLostException ex) {
					// a's short lease may end before the release.
				}
			});
		}));
	}

	@Test
	void shouldKeepAReactiveMultiLocksSecondRoundThroughReplayedReleases() throws Exception {
		assertSecondRoundKept("replay-reactive",
				(requests) -> this.reactive.acquireAll(requests)
					.map((handle) -> new Granted(handle.fencingToken(), () -> release(handle)))
					.toFuture());
	}

	private void assertSecondRoundKept(String scope, Function<List<LockRequest>, CompletableFuture<Granted>> start)
			throws Exception {
		Duration wait = Duration.ofSeconds(5);
		LockRequest a = LockRequest.builder(scope)
			.key("a")
			.owner(CALLER)
			.lease(LEASE)
			.autoRenew(false)
			.waitTime(wait)
			.build();
		LockRequest b = LockRequest.builder(scope).key("b").owner(CALLER).waitTime(wait).build();
		String keyA = this.blocking.lockKey(a.name());
		String keyB = this.blocking.lockKey(b.name());
		assertThat(HashSlots.slot(keyA)).isNotEqualTo(HashSlots.slot(keyB));
		assertThat(keyA).isLessThan(keyB);
		LockHandle holderOfB = this.blocking.acquire(LockRequest.builder(scope).key("b").owner("stranger").build());
		Granted granted;
		List<List<String>> ran;
		try (Monitor monitor = new Monitor(this.node)) {
			CompletableFuture<Granted> all = start.apply(List.of(a, b));
			await().atMost(Duration.ofSeconds(2)).until(() -> heldBy(keyA));
			// a's lease ends while b is waited for: the multi-lock starts over once b is
			// free.
			Thread.sleep(LEASE.toMillis() + 150);
			holderOfB.close();
			granted = all.get(10, TimeUnit.SECONDS);
			ran = monitor.releasesOf(keyA, keyB);
		}
		List<Object> before = List.of(hold(keyA), hold(keyB));
		assertThat(ran).as("the first round's releases")
			.anyMatch((release) -> release.contains(keyA) && release.contains(LockOwners.custom(CALLER)));
		for (List<String> release : ran) {
			this.node.command(release.toArray(String[]::new));
		}
		assertThat(List.of(hold(keyA), hold(keyB)))
			.as("the second round's holds, after %d releases run again: %s", ran.size(), ran)
			.isEqualTo(before);
		assertThat(heldBy(keyA)).isTrue();
		assertThat(heldBy(keyB)).isTrue();
		assertThat(before.get(0).toString()).contains(Long.toString(granted.firstToken()));
		granted.release().run();
		assertThat(List.of(this.node.command("EXISTS", keyA), this.node.command("EXISTS", keyB)))
			.as("nothing left once released")
			.containsOnly(0L);
	}

	private boolean heldBy(String key) {
		return LockOwners.digest(LockOwners.custom(CALLER)).equals(this.node.command("HGET", key, "owner"));
	}

	/** The whole lock hash, its fields and values, and whether it has a lease. */
	private Object hold(String key) {
		long pttl = (Long) this.node.command("PTTL", key);
		return List.of(this.node.command("HGETALL", key), pttl > 0);
	}

	private static void release(ReactiveLockHandle handle) {
		handle.release().onErrorComplete(LockLeaseLostException.class).block(Duration.ofSeconds(5));
	}

	private record Granted(long firstToken, Runnable release) {
	}

	/**
	 * {@code MONITOR} on a connection of its own: each command Redis runs, split into its
	 * arguments.
	 */
	private static final class Monitor implements AutoCloseable {

		private final List<List<String>> commands = new CopyOnWriteArrayList<>();

		private final RespConnection connection;

		private final Thread reader;

		Monitor(RedisProcess node) {
			this.connection = node.connect();
			this.connection.send("MONITOR");
			this.reader = new Thread(() -> {
				try {
					while (true) {
						if (this.connection.awaitNext() instanceof String line && line.contains("\"")) {
							this.commands.add(arguments(line));
						}
					}
				}
				catch (IOException | RuntimeException ex) {
					// Closed.
				}
			}, "monitor");
			this.reader.start();
			await().atMost(Duration.ofSeconds(2)).until(() -> {
				node.command("PING");
				return !this.commands.isEmpty();
			});
		}

		/**
		 * Return the release scripts run on these keys so far, as their clients sent
		 * them.
		 */
		List<List<String>> releasesOf(String... keys) {
			return this.commands.stream()
				.filter(Monitor::isRelease)
				.filter((command) -> List.of(keys).stream().anyMatch(command::contains))
				.toList();
		}

		private static boolean isRelease(List<String> command) {
			String name = command.get(0).toUpperCase(Locale.ROOT);
			String sha = new String(LockScripts.RELEASE.sha1(), StandardCharsets.US_ASCII);
			return (name.equals("FCALL") && command.get(1).endsWith("_release"))
					|| (name.equals("EVALSHA") && command.get(1).equals(sha));
		}

		/**
		 * Split a {@code MONITOR} line ({@code 1.2 [0 127.0.0.1:5] "FCALL" "name" ...})
		 * into its quoted arguments.
		 */
		private static List<String> arguments(String line) {
			List<String> arguments = new ArrayList<>();
			int at = line.indexOf('"');
			while (at >= 0) {
				StringBuilder argument = new StringBuilder();
				at++;
				while (line.charAt(at) != '"') {
					char c = line.charAt(at);
					if (c == '\\' && line.charAt(at + 1) == 'x') {
						argument.append((char) Integer.parseInt(line.substring(at + 2, at + 4), 16));
						at += 4;
					}
					else if (c == '\\') {
						argument.append(line.charAt(at + 1));
						at += 2;
					}
					else {
						argument.append(c);
						at++;
					}
				}
				arguments.add(argument.toString());
				at = line.indexOf('"', at + 1);
			}
			return arguments;
		}

		@Override
		public void close() throws InterruptedException {
			this.connection.close();
			this.reader.join(2000);
		}

	}

}
