package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.script.LockFunctions;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scripts run as functions of one library ({@code FCALL}) on a server with Functions,
 * and as scripts ({@code EVALSHA}) where functions are missing or refused, on a real
 * redis-server: the library is loaded on first use and again after it is lost, and a user
 * who may not call functions still locks.
 */
class FunctionCallsTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated().since(7, "Redis Functions");

	@BeforeEach
	void flush() {
		redis.server().command("CONFIG", "SET", "maxmemory", "0");
		redis.server().command("CONFIG", "SET", "min-replicas-to-write", "0");
		redis.server().command("FUNCTION", "FLUSH");
		redis.server().flushAll();
	}

	@Test
	void shouldRunEveryCallAsAFunctionOnceTheLibraryIsLoaded() {
		RedisServer server = redis.server();
		LettuceConnectionFactory factory = RedisConnections.standalone(server);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			template.acquire(LockRequest.of("functions", "first")).close();
			await().atMost(Duration.ofSeconds(5)).until(this::libraryLoaded);
			server.resetStats();
			for (int i = 0; i < 10; i++) {
				template.acquire(LockRequest.of("functions", "k")).close();
			}
			assertThat(server.commandCalls("fcall")).as("function calls").isEqualTo(20);
			assertThat(server.commandCalls("evalsha") + server.commandCalls("eval")).as("script calls").isZero();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldLockOnAndLoadTheLibraryAgainWhenItIsLost() {
		RedisServer server = redis.server();
		LettuceConnectionFactory factory = RedisConnections.standalone(server);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			long first;
			try (LockHandle held = template.acquire(LockRequest.of("functions", "lost"))) {
				first = held.fencingToken();
			}
			await().atMost(Duration.ofSeconds(5)).until(this::libraryLoaded);
			// A restart without persistence, or a flush: the next call finds no function.
			server.command("FUNCTION", "FLUSH");
			try (LockHandle held = template.acquire(LockRequest.of("functions", "lost"))) {
				assertThat(held.fencingToken()).isGreaterThan(first);
				assertThat(template.isLocked("functions", "lost")).isTrue();
			}
			assertThat(template.isLocked("functions", "lost")).isFalse();
			// Loaded again by a call that finds it missing, one load interval after the
			// last load at most.
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				template.acquire(LockRequest.of("functions", "lost")).close();
				return libraryLoaded();
			});
			server.resetStats();
			template.acquire(LockRequest.of("functions", "lost")).close();
			assertThat(server.commandCalls("fcall")).as("function calls once loaded again").isEqualTo(2);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldLoadTheLibraryAgainOnceALoadThatMemoryRefusedCanSucceed() {
		RedisServer server = redis.server();
		LettuceConnectionFactory factory = RedisConnections.standalone(server);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			template.acquire(LockRequest.of("functions", "full")).close();
			await().atMost(Duration.ofSeconds(5)).until(this::libraryLoaded);
			// The library is lost while memory is full: its load is refused (OOM), and
			// the
			// call that found it missing runs its script.
			server.command("FUNCTION", "FLUSH");
			server.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
			server.command("CONFIG", "SET", "maxmemory", "1");
			assertThat(template.findHeld(LockName.of("functions", "full"), "someone")).isEmpty();
			server.command("CONFIG", "SET", "maxmemory", "0");
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				template.acquire(LockRequest.of("functions", "full")).close();
				return libraryLoaded();
			});
			server.resetStats();
			for (int i = 0; i < 5; i++) {
				template.acquire(LockRequest.of("functions", "full")).close();
			}
			assertThat(server.commandCalls("fcall")).as("function calls once loaded again").isEqualTo(10);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldFindAHoldWhileRedisRefusesWrites() {
		RedisServer server = redis.server();
		LettuceConnectionFactory factory = RedisConnections.standalone(server);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			LockName name = LockName.of("functions", "read");
			try (LockHandle held = template
				.acquire(LockRequest.builder("functions").key("read").owner("job-7").build())) {
				await().atMost(Duration.ofSeconds(5)).until(this::libraryLoaded);
				// Too few replicas for writes: the check only reads, so it still runs.
				server.command("CONFIG", "SET", "min-replicas-to-write", "1");
				assertThat(template.findHeld(name, "job-7"))
					.hasValueSatisfying((found) -> assertThat(found.fencingToken()).isEqualTo(held.fencingToken()));
				assertThat(server.commandCalls("fcall")).isPositive();
				server.command("CONFIG", "SET", "min-replicas-to-write", "0");
			}
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldLockWithScriptsForAUserWhoMayNotCallFunctions() {
		RedisServer server = redis.server();
		server.command("ACL", "SETUSER", "scripts-only", "on", ">secret", "~*", "&*", "+@all", "-fcall", "-function");
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
		configuration.setUsername("scripts-only");
		configuration.setPassword("secret");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			try (LockHandle held = template.acquire(LockRequest.of("functions", "refused"))) {
				assertThat(template.isLocked("functions", "refused")).isTrue();
				assertThat(held.isHeld()).isTrue();
			}
			server.resetStats();
			for (int i = 0; i < 5; i++) {
				template.acquire(LockRequest.of("functions", "refused")).close();
			}
			assertThat(server.commandCalls("evalsha")).as("script calls").isEqualTo(10);
			assertThat(server.commandCalls("fcall")).as("no function call tried again").isZero();
			assertThat(libraryLoaded()).isFalse();
		}
		finally {
			factory.destroy();
			server.command("ACL", "DELUSER", "scripts-only");
		}
	}

	private boolean libraryLoaded() {
		Object libraries = redis.server().command("FUNCTION", "LIST", "LIBRARYNAME", LockFunctions.LIBRARY_NAME);
		return libraries instanceof List<?> list && !list.isEmpty();
	}

}
