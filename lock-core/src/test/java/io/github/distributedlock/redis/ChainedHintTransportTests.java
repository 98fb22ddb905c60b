package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.HostAndPort;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RedisTopologyExtension;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What the chained hint of docs/design/waiting-and-hand-off.md relies on, held to a real
 * redis-server.
 * <p>
 * A waiter sends, on a connection of its own, {@code BLPOP <lock>:hint:<request>} and its
 * attempt right behind it without waiting; the release pushes the hint. The attempt here
 * is a script that counts its runs and logs the server time of each, and the push is a
 * script that logs the server time before it pushes, so the delay between them is
 * measured by Redis's own clock. The dedicated connections come from the factory's native
 * client, the way the design would get them, for standalone (with a password and a
 * database, to show they carry over), Sentinel and Cluster.
 */
class ChainedHintTransportTests {

	private static final String PASSWORD = "chained-hint";

	private static final int DATABASE = 2;

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final String HINT = "{lock}:hint:r1";

	private static final String RUNS = "{lock}:runs";

	private static final String LOG = "{lock}:log";

	/**
	 * The attempt: counts its runs and logs the server time of each, in microseconds.
	 */
	private static final String ATTEMPT = """
			local runs = redis.call('INCR', KEYS[1])
			local now = redis.call('TIME')
			redis.call('RPUSH', KEYS[2], 'attempt ' .. now[1] .. string.format('%06d', now[2]))
			return runs""";

	/**
	 * The release's hint: logs the server time, then pushes the hint key and bounds its
	 * life as the claim would.
	 */
	private static final String PUSH = """
			local now = redis.call('TIME')
			redis.call('RPUSH', KEYS[2], 'push ' .. now[1] .. string.format('%06d', now[2]))
			redis.call('LPUSH', KEYS[1], '1')
			redis.call('PEXPIRE', KEYS[1], 2000)
			return 1""";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated("--requirepass", PASSWORD);

	@RegisterExtension
	static RedisTopologyExtension<RedisSentinelTopology> sentinel = RedisTopologyExtension.sentinel();

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> cluster = RedisTopologyExtension.cluster();

	private static final Map<Kind, LettuceConnectionFactory> factories = new HashMap<>();

	@BeforeAll
	static void startFactories() {
		RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration(redis.server().host(),
				redis.server().port());
		standalone.setPassword(PASSWORD);
		standalone.setDatabase(DATABASE);
		factories.put(Kind.STANDALONE, bootLike(standalone, RedisConnections.COMMAND_TIMEOUT));
		RedisSentinelConfiguration sentinels = new RedisSentinelConfiguration();
		sentinels.master(sentinel.topology().masterName());
		for (HostAndPort address : sentinel.topology().sentinelAddresses()) {
			sentinels.sentinel(address.host(), address.port());
		}
		factories.put(Kind.SENTINEL, bootLike(sentinels, RedisConnections.COMMAND_TIMEOUT));
		RedisClusterConfiguration masters = new RedisClusterConfiguration();
		for (RedisProcess master : cluster.topology().masters()) {
			masters.clusterNode(master.host(), master.port());
		}
		factories.put(Kind.CLUSTER, bootLike(masters, RedisConnections.COMMAND_TIMEOUT));
	}

	@AfterAll
	static void stopFactories() {
		factories.values().forEach(LettuceConnectionFactory::destroy);
		factories.clear();
	}

	@AfterEach
	void flush() {
		redis.server().flushAll();
		sentinel.topology().currentMaster().flushAll();
		cluster.topology().flushAll();
	}

	@ParameterizedTest
	@EnumSource(Kind.class)
	void attemptBehindABlockedBlpopRunsOnlyOnceThePushUnblocksIt(Kind kind) throws Exception {
		try (Waiter waiter = Waiter.of(factories.get(kind)); Waiter other = Waiter.of(factories.get(kind))) {
			String sha = waiter.load();
			RedisFuture<KeyValue<byte[], byte[]>> popped = waiter.async().blpop(5, bytes(HINT));
			RedisFuture<Long> attempt = waiter.attempt(sha);
			// Redis holds the attempt unread in the blocked client's query buffer.
			Map<String, String> blocked = awaitBlockedWithAttemptQueued(kind);
			assertThat(other.runs()).isZero();
			assertThat(attempt.isDone()).isFalse();
			other.push();
			KeyValue<byte[], byte[]> hint = popped.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(string(hint.getKey())).isEqualTo(HINT);
			assertThat(string(hint.getValue())).isEqualTo("1");
			assertThat(attempt.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1L);
			List<Entry> log = other.log();
			assertThat(log).extracting(Entry::what).containsExactly("push", "attempt");
			long delay = log.get(1).micros() - log.get(0).micros();
			System.out.printf("[%s] blocked client %s qbuf=%s; push -> attempt: %d us%n", kind, blocked.get("id"),
					blocked.get("qbuf"), delay);
			// Well before the BLPOP's own 5 s timeout: the push, not the timeout, ran it.
			assertThat(delay).isNotNegative().isLessThan(1_000_000);
		}
	}

	@ParameterizedTest
	@EnumSource(Kind.class)
	void attemptBehindABlpopThatTimesOutRunsWhenItTimesOut(Kind kind) throws Exception {
		try (Waiter waiter = Waiter.of(factories.get(kind)); Waiter other = Waiter.of(factories.get(kind))) {
			String sha = waiter.load();
			long sent = serverMicros(nodeOfLock(kind));
			RedisFuture<KeyValue<byte[], byte[]>> popped = waiter.async().blpop(0.2, bytes(HINT));
			RedisFuture<Long> attempt = waiter.attempt(sha);
			assertThat(attempt.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1L);
			assertThat(popped.get()).isNull();
			List<Entry> log = other.log();
			assertThat(log).extracting(Entry::what).containsExactly("attempt");
			long waited = log.get(0).micros() - sent;
			System.out.printf("[%s] BLPOP 0.2 s timed out, attempt ran %d us after the pair was sent%n", kind, waited);
			// Redis times a BLPOP out in whole milliseconds from when it read it.
			assertThat(waited).isGreaterThanOrEqualTo(199_000);
		}
	}

	@Test
	void attemptQueuedOnAClosedConnectionNeverRuns() throws Exception {
		try (Waiter waiter = Waiter.of(factories.get(Kind.STANDALONE));
				Waiter other = Waiter.of(factories.get(Kind.STANDALONE))) {
			String sha = waiter.load();
			RedisFuture<KeyValue<byte[], byte[]>> popped = waiter.async().blpop(5, bytes(HINT));
			RedisFuture<Long> attempt = waiter.attempt(sha);
			String id = awaitBlockedWithAttemptQueued(Kind.STANDALONE).get("id");
			waiter.connection().close();
			System.out.printf("[close] BLPOP future done=%s (%s), attempt done=%s (%s)%n", popped.isDone(),
					failure(popped), attempt.isDone(), failure(attempt));
			await().atMost(TIMEOUT)
				.until(() -> clients(redis.server()).stream().noneMatch((c) -> id.equals(c.get("id"))));
			Thread.sleep(100);
			System.out.printf("[close] once the server dropped it: BLPOP future %s, attempt %s%n", failure(popped),
					failure(attempt));
			other.push();
			// Nobody popped the hint, and the attempt went with its connection.
			assertThat(other.sync().llen(bytes(HINT))).isEqualTo(1);
			assertThat(other.runs()).isZero();
			assertThat(other.log()).extracting(Entry::what).containsExactly("push");
			// Failed by the close, not by a timeout.
			assertThat(failure(popped)).isEqualTo("io.lettuce.core.RedisException: Connection closed");
			assertThat(failure(attempt)).isEqualTo("io.lettuce.core.RedisException: Connection closed");
		}
	}

	@Test
	void attemptQueuedOnAKilledConnectionIsSentAgainBehindItsBlpop() throws Exception {
		try (Waiter waiter = Waiter.of(factories.get(Kind.STANDALONE));
				Waiter other = Waiter.of(factories.get(Kind.STANDALONE))) {
			String sha = waiter.load();
			RedisFuture<KeyValue<byte[], byte[]>> popped = waiter.async().blpop(5, bytes(HINT));
			RedisFuture<Long> attempt = waiter.attempt(sha);
			String killed = awaitBlockedWithAttemptQueued(Kind.STANDALONE).get("id");
			redis.server().command("CLIENT", "KILL", "ID", killed);
			Map<String, String> again = await().atMost(TIMEOUT)
				.until(() -> blockedWithAttemptQueued(redis.server()),
						(client) -> client.isPresent() && !client.get().get("id").equals(killed))
				.orElseThrow();
			System.out.printf("[kill] killed %s; blocked again as %s qbuf=%s; BLPOP done=%s, attempt done=%s%n", killed,
					again.get("id"), again.get("qbuf"), popped.isDone(), attempt.isDone());
			assertThat(again.get("id")).isNotEqualTo(killed);
			assertThat(other.runs()).isZero();
			other.push();
			assertThat(string(popped.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).getValue())).isEqualTo("1");
			assertThat(attempt.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1L);
			assertThat(other.log()).extracting(Entry::what).containsExactly("push", "attempt");
		}
	}

	@Test
	void commandTimeoutFailsTheCallerButNotTheAttempt() throws Exception {
		Duration commandTimeout = Duration.ofMillis(300);
		RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration(redis.server().host(),
				redis.server().port());
		standalone.setPassword(PASSWORD);
		standalone.setDatabase(DATABASE);
		LettuceConnectionFactory factory = bootLike(standalone, commandTimeout);
		try (Waiter waiter = Waiter.of(factory); Waiter other = Waiter.of(factories.get(Kind.STANDALONE))) {
			TimeoutOptions options = ((RedisClient) factory.getRequiredNativeClient()).getOptions().getTimeoutOptions();
			System.out.printf("[timeout] connection timeout %s, timeoutCommands=%s, applyConnectionTimeout=%s%n",
					waiter.connection().getTimeout(), options.isTimeoutCommands(), options.isApplyConnectionTimeout());
			assertThat(waiter.connection().getTimeout()).isEqualTo(commandTimeout);
			String sha = waiter.load();
			long sent = System.nanoTime();
			RedisFuture<KeyValue<byte[], byte[]>> popped = waiter.async().blpop(1, bytes(HINT));
			RedisFuture<Long> attempt = waiter.attempt(sha);
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> popped.get(2, TimeUnit.SECONDS))
				.withCauseInstanceOf(RedisCommandTimeoutException.class);
			long poppedFailed = System.nanoTime() - sent;
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> attempt.get(2, TimeUnit.SECONDS))
				.withCauseInstanceOf(RedisCommandTimeoutException.class);
			long attemptFailed = System.nanoTime() - sent;
			// The caller gave up, yet Redis still holds both, and runs the attempt.
			assertThat(blockedWithAttemptQueued(redis.server())).isPresent();
			other.push();
			await().atMost(TIMEOUT).until(other::runs, (runs) -> runs == 1);
			assertThat(other.log()).extracting(Entry::what).containsExactly("push", "attempt");
			System.out.printf(
					"[timeout] BLPOP 1 s failed after %d ms, attempt after %d ms; attempt ran after the push%n",
					TimeUnit.NANOSECONDS.toMillis(poppedFailed), TimeUnit.NANOSECONDS.toMillis(attemptFailed));
			// Late replies are matched in order: the next command gets its own.
			assertThat(waiter.async().ping().get(2, TimeUnit.SECONDS)).isEqualTo("PONG");
			// A timeout of its own lifts the factory's for this connection alone.
			waiter.connection().setTimeout(Duration.ofSeconds(3));
			RedisFuture<KeyValue<byte[], byte[]>> poppedAgain = waiter.async().blpop(1, bytes(HINT + ":2"));
			RedisFuture<Long> attemptAgain = waiter.attempt(sha);
			assertThat(attemptAgain.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2L);
			assertThat(poppedAgain.get()).isNull();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void timeoutOptionsOfTheFactories() {
		TimeoutOptions lettuceDefault = ClientOptions.create().getTimeoutOptions();
		TimeoutOptions dataRedisDefault = LettuceClientConfiguration.builder()
			.build()
			.getClientOptions()
			.map(ClientOptions::getTimeoutOptions)
			.orElseThrow();
		LettuceConnectionFactory testFactory = RedisConnections.standalone(redis.server());
		TimeoutOptions testOptions = ((RedisClient) testFactory.getRequiredNativeClient()).getOptions()
			.getTimeoutOptions();
		testFactory.destroy();
		System.out.printf(
				"[options] Lettuce ClientOptions.create(): timeoutCommands=%s applyConnectionTimeout=%s autoReconnect=%s;"
						+ " Spring Data Redis builder default: timeoutCommands=%s applyConnectionTimeout=%s;"
						+ " RedisConnections.standalone: timeoutCommands=%s%n",
				lettuceDefault.isTimeoutCommands(), lettuceDefault.isApplyConnectionTimeout(),
				ClientOptions.create().isAutoReconnect(), dataRedisDefault.isTimeoutCommands(),
				dataRedisDefault.isApplyConnectionTimeout(), testOptions.isTimeoutCommands());
		// Lettuce 7 times commands out by default: so would a dedicated connection.
		assertThat(lettuceDefault.isTimeoutCommands()).isTrue();
		assertThat(dataRedisDefault.isTimeoutCommands()).isTrue();
		assertThat(testOptions.isTimeoutCommands()).isTrue();
	}

	@Test
	void dedicatedConnectionOfAStandaloneFactoryIsAuthenticatedAndSelected() throws Exception {
		try (Waiter waiter = Waiter.of(factories.get(Kind.STANDALONE))) {
			assertThat(waiter.async().clientInfo().get(2, TimeUnit.SECONDS)).contains(" db=" + DATABASE + " ");
		}
	}

	@Test
	void dedicatedConnectionOfASentinelFactoryIsOnTheMaster() throws Exception {
		try (Waiter waiter = Waiter.of(factories.get(Kind.SENTINEL))) {
			assertThat(waiter.async().info("server").get(2, TimeUnit.SECONDS))
				.contains("tcp_port:" + sentinel.topology().currentMaster().port());
			String id = String.valueOf(waiter.id());
			assertThat(clients(sentinel.topology().currentMaster())).anyMatch((c) -> c.get("id").equals(id));
		}
	}

	@Test
	void nativeConnectionOfASharedFactoryIsSharedAndOfAnUnsharedOneIsNot() {
		LettuceConnectionFactory shared = factories.get(Kind.SENTINEL);
		try (RedisConnection one = shared.getConnection(); RedisConnection two = shared.getConnection()) {
			assertThat(nativeId(one)).isEqualTo(nativeId(two));
		}
		RedisSentinelConfiguration sentinels = new RedisSentinelConfiguration();
		sentinels.master(sentinel.topology().masterName());
		for (HostAndPort address : sentinel.topology().sentinelAddresses()) {
			sentinels.sentinel(address.host(), address.port());
		}
		LettuceConnectionFactory unshared = bootLike(sentinels, RedisConnections.COMMAND_TIMEOUT);
		unshared.setShareNativeConnection(false);
		try (RedisConnection one = unshared.getConnection(); RedisConnection two = unshared.getConnection()) {
			long first = nativeId(one);
			assertThat(first).isNotEqualTo(nativeId(two));
			assertThat(clients(sentinel.topology().currentMaster()))
				.anyMatch((c) -> c.get("id").equals(String.valueOf(first)));
		}
		finally {
			unshared.destroy();
		}
	}

	private static long nativeId(RedisConnection connection) {
		try {
			RedisClusterAsyncCommands<?, ?> commands = (RedisClusterAsyncCommands<?, ?>) connection
				.getNativeConnection();
			return commands.clientId().get(2, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A factory built as Spring Boot 4 builds one: its client options time commands out.
	 */
	private static LettuceConnectionFactory bootLike(RedisConfiguration configuration, Duration commandTimeout) {
		ClientOptions.Builder options = (configuration instanceof RedisClusterConfiguration)
				? ClusterClientOptions.builder() : ClientOptions.builder();
		options.socketOptions(SocketOptions.builder().connectTimeout(RedisConnections.COMMAND_TIMEOUT).build())
			.timeoutOptions(TimeoutOptions.enabled());
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.clientOptions(options.build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static RedisServer nodeOfLock(Kind kind) {
		return switch (kind) {
			case STANDALONE -> redis.server();
			case SENTINEL -> sentinel.topology().currentMaster();
			case CLUSTER -> cluster.topology().nodeForKey(HINT);
		};
	}

	private static Map<String, String> awaitBlockedWithAttemptQueued(Kind kind) {
		return await().atMost(TIMEOUT)
			.until(() -> blockedWithAttemptQueued(nodeOfLock(kind)), Optional::isPresent)
			.orElseThrow();
	}

	/**
	 * The client blocked in {@code BLPOP} whose query buffer holds a command it has not
	 * read yet.
	 */
	private static Optional<Map<String, String>> blockedWithAttemptQueued(RedisServer node) {
		return clients(node).stream()
			.filter((c) -> c.get("flags").contains("b") && "blpop".equals(c.get("cmd"))
					&& Long.parseLong(c.get("qbuf")) > 0)
			.findFirst();
	}

	private static List<Map<String, String>> clients(RedisServer node) {
		List<Map<String, String>> clients = new ArrayList<>();
		for (String line : String.valueOf(node.command("CLIENT", "LIST")).split("\n")) {
			Map<String, String> fields = new HashMap<>();
			for (String field : line.trim().split(" ")) {
				int equals = field.indexOf('=');
				if (equals > 0) {
					fields.put(field.substring(0, equals), field.substring(equals + 1));
				}
			}
			if (!fields.isEmpty()) {
				clients.add(fields);
			}
		}
		return clients;
	}

	private static long serverMicros(RedisServer node) {
		List<?> time = (List<?>) node.command("TIME");
		return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
	}

	private static String failure(RedisFuture<?> future) {
		if (!future.isDone()) {
			return "pending";
		}
		try {
			future.get();
			return "completed";
		}
		catch (Exception ex) {
			return String.valueOf((ex.getCause() != null) ? ex.getCause() : ex);
		}
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static String string(byte[] value) {
		return new String(value, StandardCharsets.UTF_8);
	}

	enum Kind {

		STANDALONE, SENTINEL, CLUSTER

	}

	/**
	 * One line of the log: what ran and when, in server microseconds.
	 */
	record Entry(String what, long micros) {

		static Entry parse(String line) {
			int space = line.indexOf(' ');
			return new Entry(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
		}

	}

	/**
	 * A connection of its own from the factory's native client, as a waiter would hold
	 * one: authenticated, on the factory's database, on the Sentinel group's master, or
	 * routing by slot in a Cluster.
	 */
	record Waiter(StatefulConnection<byte[], byte[]> connection,
			RedisClusterAsyncCommands<byte[], byte[]> async) implements AutoCloseable {

		static Waiter of(LettuceConnectionFactory factory) {
			AbstractRedisClient client = factory.getRequiredNativeClient();
			if (client instanceof RedisClusterClient clusterClient) {
				StatefulRedisClusterConnection<byte[], byte[]> connection = clusterClient
					.connect(ByteArrayCodec.INSTANCE);
				return new Waiter(connection, connection.async());
			}
			StatefulRedisConnection<byte[], byte[]> connection = ((RedisClient) client)
				.connect(ByteArrayCodec.INSTANCE);
			return new Waiter(connection, connection.async());
		}

		String load() throws Exception {
			return this.async.scriptLoad(ATTEMPT).get(2, TimeUnit.SECONDS);
		}

		RedisFuture<Long> attempt(String sha) {
			return this.async.evalsha(sha, ScriptOutputType.INTEGER, bytes(RUNS), bytes(LOG));
		}

		long id() throws Exception {
			return this.async.clientId().get(2, TimeUnit.SECONDS);
		}

		io.lettuce.core.cluster.api.sync.RedisClusterCommands<byte[], byte[]> sync() {
			if (this.connection instanceof StatefulRedisClusterConnection<byte[], byte[]> clusterConnection) {
				return clusterConnection.sync();
			}
			return ((StatefulRedisConnection<byte[], byte[]>) this.connection).sync();
		}

		void push() {
			sync().eval(PUSH, ScriptOutputType.INTEGER, bytes(HINT), bytes(LOG));
		}

		long runs() {
			byte[] runs = sync().get(bytes(RUNS));
			return (runs != null) ? Long.parseLong(string(runs)) : 0;
		}

		List<Entry> log() {
			return sync().lrange(bytes(LOG), 0, -1).stream().map((line) -> Entry.parse(string(line))).toList();
		}

		@Override
		public void close() {
			this.connection.close();
		}

	}

}
