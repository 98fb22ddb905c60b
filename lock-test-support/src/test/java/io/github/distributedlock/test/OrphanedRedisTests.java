package io.github.distributedlock.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a {@link RedisProcess} dies with its JVM even when that JVM is killed with
 * SIGKILL.
 */
class OrphanedRedisTests {

	@Test
	void shouldKillRedisWhenJvmIsKilled() throws Exception {
		try (JvmProcess child = JvmProcess.start(OrphanedRedisMain.class)) {
			String line = child.awaitLine("", Duration.ofSeconds(60));
			assertThat(line).as("pid and port reported by the child JVM").matches("\\d+ \\d+ \\S+");
			String[] parts = line.split(" ");
			ProcessHandle redis = ProcessHandle.of(Long.parseLong(parts[0])).orElseThrow();
			int port = Integer.parseInt(parts[1]);
			Path directory = Path.of(parts[2]);
			assertThat(redis.isAlive()).isTrue();
			assertThat(LoopbackPorts.isFree(port)).isFalse();
			assertThat(directory).isDirectory();

			child.kill();
			assertThat(child.isAlive()).isFalse();

			assertThat(TetheredProcess.await(() -> !redis.isAlive(), Duration.ofSeconds(5)))
				.as("redis-server %d gone after its JVM was killed", redis.pid())
				.isTrue();
			assertThat(TetheredProcess.await(() -> LoopbackPorts.isFree(port), Duration.ofSeconds(5)))
				.as("port %d free", port)
				.isTrue();
			assertThat(TetheredProcess.await(() -> !Files.exists(directory), Duration.ofSeconds(5)))
				.as("%s deleted", directory)
				.isTrue();
		}
	}

}
