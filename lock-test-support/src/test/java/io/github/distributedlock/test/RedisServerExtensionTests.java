package io.github.distributedlock.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Tests for {@link RedisServerExtension}, running fixture classes in a separate JUnit
 * engine run so that the end of that run (when the shared server must be closed) can be
 * observed.
 */
class RedisServerExtensionTests {

	static final List<RedisServer> servers = new CopyOnWriteArrayList<>();

	static final List<Long> keysSeen = new CopyOnWriteArrayList<>();

	@BeforeEach
	void clear() {
		servers.clear();
		keysSeen.clear();
	}

	@Test
	void shouldShareOneServerFlushedPerClassAndCloseItAfterTheRun() {
		TestExecutionSummary summary = run(FirstSharedUser.class, SecondSharedUser.class);
		assertThat(summary.getTestsSucceededCount()).isEqualTo(4);
		assertThat(servers).hasSize(5).allSatisfy((server) -> assertThat(server).isSameAs(servers.get(0)));
		// Each class writes a key and the nested one adds another without a flush in
		// between.
		assertThat(keysSeen).containsExactlyInAnyOrder(0L, 1L, 1L, 0L);
		RedisServer shared = servers.get(0);
		if (shared instanceof RedisProcess process) {
			assertThat(process.isRunning()).isFalse();
			assertThat(LoopbackPorts.isFree(process.port())).isTrue();
		}
	}

	@Test
	void shouldGiveEachClassItsOwnManagedServer() {
		TestExecutionSummary summary = run(FirstDedicatedUser.class, SecondDedicatedUser.class);
		assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
		assertThat(servers).hasSize(3).allSatisfy((server) -> assertThat(server).isInstanceOf(RedisProcess.class));
		assertThat(servers.get(0)).isSameAs(servers.get(1)).isNotSameAs(servers.get(2));
		for (RedisServer server : servers) {
			assertThat(((RedisProcess) server).isRunning()).isFalse();
			assertThat(LoopbackPorts.isFree(server.port())).isTrue();
		}
	}

	@Test
	void shouldExplainServerOutsideLifecycle() {
		RedisServerExtension extension = RedisServerExtension.dedicated();
		assertThatIllegalStateException().isThrownBy(extension::server).withMessageContaining("@RegisterExtension");
		assertThatIllegalStateException().isThrownBy(new RedisServerExtension()::managedServer)
			.withMessageContaining("RedisServerExtension.dedicated()");
	}

	private static TestExecutionSummary run(Class<?>... testClasses) {
		LauncherDiscoveryRequest request = request()
			.selectors(List.of(testClasses).stream().map((c) -> selectClass(c)).toList())
			.build();
		Launcher launcher = LauncherFactory.create();
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		launcher.execute(request, listener);
		TestExecutionSummary summary = listener.getSummary();
		summary.getFailures().forEach((failure) -> failure.getException().printStackTrace());
		assertThat(summary.getTotalFailureCount()).isZero();
		return summary;
	}

	@ExtendWith(RedisServerExtension.class)
	static class FirstSharedUser {

		private final RedisServer redis;

		FirstSharedUser(RedisServer redis) {
			this.redis = redis;
			servers.add(redis);
		}

		@Test
		void writeKey(RedisServer redis) {
			servers.add(redis);
			keysSeen.add((Long) redis.command("DBSIZE"));
			redis.command("SET", "first", "1");
		}

		@Nested
		class Inner {

			@Test
			void seeOuterKey() {
				keysSeen.add((Long) FirstSharedUser.this.redis.command("DBSIZE"));
			}

		}

	}

	@ExtendWith(RedisServerExtension.class)
	static class SecondSharedUser {

		@BeforeAll
		static void record(RedisServer redis) {
			servers.add(redis);
			keysSeen.add((Long) redis.command("DBSIZE"));
			redis.command("SET", "second", "1");
		}

		@Test
		void sameServer(RedisServer redis) {
			servers.add(redis);
			keysSeen.add((Long) redis.command("DBSIZE"));
		}

		@Test
		void notManagedNecessarily(RedisServer redis) {
			assertThat(redis.command("GET", "second")).isEqualTo("1");
		}

	}

	static class FirstDedicatedUser {

		@RegisterExtension
		static final RedisServerExtension redis = RedisServerExtension.dedicated("--maxmemory", "5mb");

		@Test
		void killAndStart(RedisProcess process) {
			servers.add(process);
			servers.add(redis.server());
			assertThat(process.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "5242880"));
			process.kill();
			process.start();
			assertThat(process.command("PING")).isEqualTo("PONG");
		}

	}

	static class SecondDedicatedUser {

		@RegisterExtension
		static final RedisServerExtension redis = RedisServerExtension.dedicated();

		@Test
		void ownServer(RedisServer server) {
			servers.add(server);
			assertThat(server).isInstanceOf(ManagedRedisServer.class).isSameAs(redis.managedServer());
		}

	}

}
