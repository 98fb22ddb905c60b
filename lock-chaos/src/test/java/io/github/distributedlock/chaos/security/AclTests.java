package io.github.distributedlock.chaos.security;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.ChaosNotes;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The library as a Redis ACL user restricted to its key prefix, its channels and the
 * fewest commands that work.
 */
class AclTests {

	/**
	 * The commands the library sends, from the client and from its scripts (ACL rules
	 * apply inside scripts too), for every feature with the PUBSUB and POLLING wait
	 * strategies. KEYSPACE_EVENTS also needs {@code config|get}, and
	 * {@code replicaAcknowledgements} needs {@code wait}.
	 */
	static final Set<String> MINIMAL = new TreeSet<>(List.of("eval", "evalsha", "subscribe", "unsubscribe", "exists",
			"hmget", "hget", "hset", "hsetnx", "hincrby", "hdel", "hkeys", "get", "set", "del", "pexpire", "pttl",
			"time", "publish", "zadd", "zrem", "zscore", "zrange", "zrangebyscore", "zremrangebyscore", "zcard"));

	/**
	 * The commands that let the library run its scripts as functions on Redis 7 and
	 * Valkey; without them it runs them as scripts.
	 */
	static final Set<String> FUNCTIONS = new TreeSet<>(List.of("fcall", "function|load"));

	private static final String PASSWORD = "locker-secret";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated()
		// Redis 6.2 gives a reset user every channel unless told resetchannels, and
		// counts
		// subcommands under their command: the documented ACL is 7.0's.
		.since(7, "The documented minimal ACL");

	@Test
	void shouldSendNoCommandBeyondTheMinimalList() throws Exception {
		RedisServer server = redis.server();
		// Neither scripts nor the function library loaded: the library sends every
		// command
		// it may need.
		server.command("SCRIPT", "FLUSH");
		server.command("FUNCTION", "FLUSH");
		server.resetStats();
		LettuceConnectionFactory factory = Connections.standalone(server.port());
		try {
			new LockWorkout(factory, "lock", server).run();
		}
		finally {
			factory.destroy();
		}
		Set<String> sent = new TreeSet<>(server.commandCalls().keySet());
		// The test's own commands, and the handshake that ACLs always allow.
		sent.removeAll(List.of("config|resetstat", "info", "pubsub|numsub", "hello", "auth", "client|setinfo",
				"script|flush"));
		// Spring's LettuceSubscription sends PING after its last UNSUBSCRIBE when the
		// template closes; refusing it
		// changes nothing (see
		// shouldWorkAsAUserLimitedToItsPrefixItsChannelsAndTheMinimalCommands).
		assertThat(sent.remove("ping")).as("PING at shutdown").isTrue();
		Set<String> expected = new TreeSet<>(MINIMAL);
		expected.addAll(FUNCTIONS);
		assertThat(sent).as("commands the library sent").isEqualTo(expected);
	}

	@Test
	void shouldRunItsScriptsAsFunctionsWhenTheUserMayLoadAndCallThem() throws Exception {
		RedisServer server = redis.server();
		server.command("FUNCTION", "FLUSH");
		Set<String> commands = new TreeSet<>(MINIMAL);
		commands.addAll(FUNCTIONS);
		String line = aclLine("locker", "lock", commands);
		server.command(line.split(" "));
		runAs("locker", "lock");
		server.resetStats();
		runAs("locker", "lock");
		assertThat(server.commandCalls("fcall")).as("function calls once the library is loaded").isPositive();
		assertThat(server.commandCalls("evalsha") + server.commandCalls("eval")).as("script calls").isZero();
		// The security page shows this very command, with a placeholder for the password.
		assertThat(Files.readAllLines(Path.of("..", "docs", "security.md"))).map(String::strip)
			.contains(line.replace(PASSWORD, "<password>"));
	}

	@Test
	void shouldWorkAsAUserLimitedToItsPrefixItsChannelsAndTheMinimalCommands() throws Exception {
		String line = aclLine("locker", "lock", MINIMAL);
		redis.server().command(line.split(" "));
		ChaosNotes.note("Redis ACL",
				"- Minimal ACL for the default PUBSUB strategy and key prefix `lock` (each command "
						+ "shown necessary by removing it): `" + line.replace(PASSWORD, "<password>") + "`");
		runAs("locker", "lock");
		// The security page shows this very command, with a placeholder for the password.
		assertThat(Files.readAllLines(Path.of("..", "docs", "security.md"))).map(String::strip)
			.contains(line.replace(PASSWORD, "<password>"));
	}

	@Test
	void shouldNeedEveryCommandOfTheMinimalList() throws Exception {
		RedisServer server = redis.server();
		// eval first and alone: it is only needed when the script cache is empty.
		server.command("SCRIPT", "FLUSH");
		List<String> notNeeded = new ArrayList<>();
		if (works("eval", server)) {
			notNeeded.add("eval");
		}
		ExecutorService pool = Executors.newFixedThreadPool(6);
		try {
			Map<String, Future<Boolean>> runs = new LinkedHashMap<>();
			int i = 0;
			for (String command : MINIMAL) {
				if (!command.equals("eval")) {
					String prefix = "lock" + (i++);
					runs.put(command, pool.submit(() -> works(command, prefix, server)));
				}
			}
			for (Map.Entry<String, Future<Boolean>> run : runs.entrySet()) {
				if (run.getValue().get(60, TimeUnit.SECONDS)) {
					notNeeded.add(run.getKey());
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(notNeeded).as("commands the library works without").isEmpty();
	}

	@Test
	void shouldWorkAsAUserWithAllButTheDangerousCommands() throws Exception {
		redis.server()
			.command("ACL", "SETUSER", "broad", "reset", "resetchannels", "on", ">" + PASSWORD, "~lock:*", "&lock:*",
					"+@all", "-@dangerous");
		runAs("broad", "lock");
	}

	@Test
	void shouldFailClearlyOutsideTheAllowedPrefix() throws Exception {
		redis.server().command(aclLine("locker", "lock", MINIMAL).split(" "));
		LettuceConnectionFactory factory = Connections.standalone(redis.server().port(), "locker", PASSWORD);
		try (RedisLockTemplate elsewhere = RedisLockTemplate.builder(factory)
			.keyPrefix("other")
			.pubSub(false)
			.defaults(io.github.distributedlock.LockDefaults.STANDARD
				.withWaitStrategy(io.github.distributedlock.WaitStrategy.POLLING))
			.build()) {
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> elsewhere.acquire(LockRequest.of("outside", "1")))
				.withMessageContaining("outside:1")
				.havingRootCause()
				.withMessageContaining("NOPERM");
		}
		finally {
			factory.destroy();
		}
	}

	private static boolean works(String without, RedisServer server) {
		return works(without, "lock", server);
	}

	/**
	 * Run the workout as a user that has every minimal command but one.
	 */
	private static boolean works(String without, String prefix, RedisServer server) {
		Set<String> commands = new TreeSet<>(MINIMAL);
		commands.remove(without);
		String user = "without-" + without;
		server.command(aclLine(user, prefix, commands).split(" "));
		try {
			runAs(user, prefix);
			return true;
		}
		catch (Throwable ex) {
			return false;
		}
	}

	private static void runAs(String user, String prefix) throws Exception {
		LettuceConnectionFactory factory = Connections.standalone(redis.server().port(), user, PASSWORD);
		try {
			new LockWorkout(factory, prefix, redis.server()).run();
		}
		finally {
			factory.destroy();
		}
	}

	static String aclLine(String user, String prefix, Set<String> commands) {
		StringBuilder line = new StringBuilder("ACL SETUSER " + user + " reset resetchannels on >" + PASSWORD + " ~"
				+ prefix + ":* &" + prefix + ":* -@all");
		commands.forEach((command) -> line.append(" +").append(command));
		return line.toString();
	}

}
