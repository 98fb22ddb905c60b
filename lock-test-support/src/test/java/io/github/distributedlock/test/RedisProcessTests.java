package io.github.distributedlock.test;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link RedisProcess} against the real {@code redis-server} binary.
 */
class RedisProcessTests {

	private RedisProcess redis;

	@AfterEach
	void closeRedis() {
		if (this.redis != null) {
			this.redis.close();
		}
	}

	@Test
	void shouldAnswerCommandsWithParsedReplies() {
		this.redis = RedisServers.launch();
		assertThat(this.redis.port()).isNotEqualTo(6379);
		assertThat(this.redis.uri()).isEqualTo("redis://127.0.0.1:" + this.redis.port());
		assertThat(this.redis.command("PING")).isEqualTo("PONG");
		assertThat(this.redis.command("SET", "greeting", "héllo wörld")).isEqualTo("OK");
		assertThat(this.redis.command("GET", "greeting")).isEqualTo("héllo wörld");
		assertThat(this.redis.command("GET", "missing")).isNull();
		assertThat(this.redis.command("INCRBY", "counter", "41")).isEqualTo(41L);
		assertThat(this.redis.command("RPUSH", "list", "a", "", "c")).isEqualTo(3L);
		assertThat(this.redis.command("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "", "c"));
		assertThat(this.redis.command("EVAL", "return {1, 'two', false}", "0"))
			.isEqualTo(Arrays.asList(1L, "two", null));
	}

	@Test
	void shouldThrowServerMessageForErrorReply() {
		this.redis = RedisServers.launch();
		this.redis.command("SET", "text", "abc");
		assertThatExceptionOfType(RedisCommandException.class).isThrownBy(() -> this.redis.command("INCR", "text"))
			.withMessage("ERR value is not an integer or out of range")
			.satisfies((ex) -> assertThat(ex.errorCode()).isEqualTo("ERR"));
		assertThatExceptionOfType(RedisCommandException.class)
			.isThrownBy(() -> this.redis.command("EVALSHA", "0000000000000000000000000000000000000000", "0"))
			.satisfies((ex) -> assertThat(ex.errorCode()).isEqualTo("NOSCRIPT"));
		assertThat(this.redis.command("GET", "text")).as("connection still usable").isEqualTo("abc");
	}

	@Test
	void shouldKeepRepliesApartWhenThreadsShareServer() throws Exception {
		this.redis = RedisServers.launch();
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> results = new ArrayList<>();
			for (int thread = 0; thread < 8; thread++) {
				String key = "key-" + thread;
				results.add(executor.submit(() -> {
					for (int i = 1; i <= 200; i++) {
						assertThat(this.redis.command("INCR", key)).isEqualTo((long) i);
					}
				}));
			}
			for (Future<?> result : results) {
				result.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(this.redis.commandCalls("incr")).isEqualTo(1600L);
	}

	@Test
	void shouldCountCommandCallsUntilReset() {
		this.redis = RedisServers.launch();
		this.redis.resetStats();
		for (int i = 0; i < 3; i++) {
			this.redis.command("PUBLISH", "channel", "message");
		}
		this.redis.command("SET", "key", "value");
		assertThat(this.redis.commandCalls()).containsEntry("publish", 3L).containsEntry("set", 1L);
		assertThat(this.redis.commandCalls("PUBLISH")).isEqualTo(3L);
		this.redis.resetStats();
		assertThat(this.redis.commandCalls()).doesNotContainKeys("publish", "set");
		assertThat(this.redis.commandCalls("publish")).isZero();
	}

	@Test
	void shouldApplyExtraArgs() {
		this.redis = RedisServers.launch("--maxmemory", "12mb", "--maxmemory-policy", "noeviction");
		assertThat(this.redis.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "12582912"));
		assertThat(this.redis.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
	}

	@Test
	void shouldLetTheBundledRedis62RunDebugWithoutTheSettingItDoesNotKnow() {
		this.redis = RedisProcess.builder()
			.binary(BundledRedis.redis62())
			.args("--enable-debug-command", "yes", "--maxmemory", "12mb")
			.launch();
		assertThat(this.redis.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
		assertThat(this.redis.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "12582912"));
	}

	@Test
	void shouldTellTheBundledRedis62HasNoFunctions() {
		this.redis = RedisProcess.builder().binary(BundledRedis.redis62()).launch();
		assertThat(this.redis.redisVersion()).startsWith("6.2.");
		assertThat(this.redis.hasFunctions()).isFalse();
		assertThatExceptionOfType(RedisCommandException.class).isThrownBy(() -> this.redis.command("FUNCTION", "LIST"));
	}

	@Test
	void shouldTellWhetherTheLaunchedRedisHasFunctions() {
		this.redis = RedisServers.launch();
		boolean listsFunctions;
		try {
			listsFunctions = this.redis.command("FUNCTION", "LIST") instanceof List<?>;
		}
		catch (RedisCommandException ex) {
			listsFunctions = false;
		}
		assertThat(this.redis.hasFunctions()).as("Redis %s", this.redis.redisVersion()).isEqualTo(listsFunctions);
	}

	@Test
	void shouldAuthenticateWhenPasswordRequired() {
		this.redis = RedisServers.launch("--requirepass", "s3cret");
		assertThat(this.redis.uri()).isEqualTo("redis://:s3cret@127.0.0.1:" + this.redis.port());
		assertThat(this.redis.command("SET", "key", "value")).isEqualTo("OK");
		ExternalRedis anonymous = ExternalRedis.connect("redis://127.0.0.1:" + this.redis.port());
		assertThatExceptionOfType(RedisCommandException.class).isThrownBy(() -> anonymous.command("GET", "key"))
			.satisfies((ex) -> assertThat(ex.errorCode()).isEqualTo("NOAUTH"));
		anonymous.close();
	}

	@Test
	void shouldStartFromConfigFileKeptAcrossRestart() throws Exception {
		this.redis = RedisProcess.builder().config("maxmemory 7mb", "maxmemory-policy allkeys-lru").launch();
		assertThat(Files.readAllLines(this.redis.directory().resolve("redis.conf"))).containsExactly("maxmemory 7mb",
				"maxmemory-policy allkeys-lru");
		assertThat(this.redis.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "7340032"));
		this.redis.command("CONFIG", "SET", "maxmemory", "9mb");
		this.redis.command("CONFIG", "REWRITE");
		this.redis.restart();
		assertThat(this.redis.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "9437184"));
		assertThat(this.redis.command("CONFIG", "GET", "maxmemory-policy"))
			.isEqualTo(List.of("maxmemory-policy", "allkeys-lru"));
	}

	@Test
	void shouldListenOnFixedPort() {
		int port = LoopbackPorts.findFree();
		this.redis = RedisProcess.builder().port(port).launch();
		assertThat(this.redis.port()).isEqualTo(port);
		assertThat(LoopbackPorts.isFree(port)).isFalse();
		assertThat(this.redis.command("PING")).isEqualTo("PONG");
	}

	@Test
	void shouldTimeOutWhilePausedAndAnswerAfterResume() {
		this.redis = RedisProcess.builder().timeout(Duration.ofMillis(500)).launch();
		this.redis.command("SET", "key", "value");
		this.redis.pause();
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> this.redis.command("GET", "key"))
			.withCauseInstanceOf(SocketTimeoutException.class);
		assertThat(ProcessHandle.of(this.redis.pid())).hasValueSatisfying((p) -> assertThat(p.isAlive()).isTrue());
		this.redis.resume();
		assertThat(this.redis.command("GET", "key")).isEqualTo("value");
	}

	@Test
	void shouldStartOnSamePortAfterKill() {
		this.redis = RedisServers.launch();
		int port = this.redis.port();
		long pid = this.redis.pid();
		ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
		this.redis.command("SET", "key", "value");
		this.redis.kill();
		assertThat(process.isAlive()).isFalse();
		assertThat(this.redis.isRunning()).isFalse();
		assertThat(LoopbackPorts.isFree(port)).isTrue();
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> this.redis.command("PING"));
		this.redis.start();
		assertThat(this.redis.port()).isEqualTo(port);
		assertThat(this.redis.pid()).isNotEqualTo(pid);
		assertThat(this.redis.command("GET", "key")).as("nothing is persisted").isNull();
		assertThat(this.redis.command("PING")).isEqualTo("PONG");
	}

	@Test
	void shouldKillPausedServer() {
		this.redis = RedisServers.launch();
		ProcessHandle process = ProcessHandle.of(this.redis.pid()).orElseThrow();
		this.redis.pause();
		this.redis.stop();
		assertThat(process.isAlive()).isFalse();
		this.redis.start();
		assertThat(this.redis.command("PING")).isEqualTo("PONG");
	}

	@Test
	void shouldFreePortOnStopAndRestart() {
		this.redis = RedisServers.launch();
		int port = this.redis.port();
		ProcessHandle process = ProcessHandle.of(this.redis.pid()).orElseThrow();
		this.redis.stop();
		assertThat(process.isAlive()).isFalse();
		assertThat(LoopbackPorts.isFree(port)).isTrue();
		assertThatIllegalStateException().isThrownBy(this.redis::pause).withMessageContaining("not running");
		this.redis.restart();
		assertThat(LoopbackPorts.isFree(port)).isFalse();
		assertThat(this.redis.command("PING")).isEqualTo("PONG");
	}

	@Test
	void shouldStartAgainAfterShutdownCommand() {
		this.redis = RedisServers.launch();
		assertThat(this.redis.command("SHUTDOWN", "NOSAVE")).isNull();
		// Redis drops its clients a moment before its process exits.
		assertThat(TetheredProcess.await(() -> !this.redis.isRunning(), Duration.ofSeconds(5))).isTrue();
		this.redis.start();
		assertThat(this.redis.command("PING")).isEqualTo("PONG");
	}

	@Test
	void shouldReconnectAfterServerDropsConnection() {
		this.redis = RedisServers.launch();
		this.redis.command("CLIENT", "SETNAME", "victim");
		this.redis.command("CLIENT", "KILL", "SKIPME", "no");
		assertThat(this.redis.command("CLIENT", "GETNAME")).isNull();
	}

	@Test
	void shouldFreePortAndDeleteDirectoryOnClose() {
		RedisProcess closed = RedisServers.launch();
		int port = closed.port();
		ProcessHandle process = ProcessHandle.of(closed.pid()).orElseThrow();
		assertThat(closed.directory()).isDirectory();
		closed.close();
		closed.close();
		assertThat(process.isAlive()).isFalse();
		assertThat(LoopbackPorts.isFree(port)).isTrue();
		assertThat(Files.exists(closed.directory())).isFalse();
		assertThatIllegalStateException().isThrownBy(closed::start).withMessageContaining("closed");
	}

	@Test
	void shouldReportLogTailWhenServerCannotStart() {
		assertThatIllegalStateException().isThrownBy(() -> RedisServers.launch("--no-such-directive", "x"))
			.withMessageContaining("exited while starting")
			.withMessageContaining("no-such-directive");
	}

	@Test
	void shouldFailOnTakenFixedPort() {
		this.redis = RedisServers.launch();
		assertThatIllegalStateException().isThrownBy(() -> RedisProcess.builder().port(this.redis.port()).launch())
			.withMessageContaining("already in use");
		assertThat(this.redis.command("PING")).isEqualTo("PONG");
	}

}
