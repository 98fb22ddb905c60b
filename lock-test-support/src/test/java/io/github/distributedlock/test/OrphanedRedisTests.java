package io.github.distributedlock.test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a {@link RedisProcess} dies with its JVM even when that JVM is killed with SIGKILL.
 */
class OrphanedRedisTests {

	@Test
	void shouldKillRedisWhenJvmIsKilled() throws Exception {
		String java = ProcessHandle.current().info().command().orElseThrow();
		Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				OrphanedRedisMain.class.getName())
			.redirectError(Redirect.INHERIT)
			.start();
		try {
			BufferedReader reader = new BufferedReader(
					new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
			String line = reader.readLine();
			assertThat(line).as("pid and port reported by the child JVM").matches("\\d+ \\d+ \\S+");
			String[] parts = line.split(" ");
			ProcessHandle redis = ProcessHandle.of(Long.parseLong(parts[0])).orElseThrow();
			int port = Integer.parseInt(parts[1]);
			Path directory = Path.of(parts[2]);
			assertThat(redis.isAlive()).isTrue();
			assertThat(LoopbackPorts.isFree(port)).isFalse();
			assertThat(directory).isDirectory();

			child.destroyForcibly();
			assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();

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
		finally {
			child.destroyForcibly();
		}
	}

}
