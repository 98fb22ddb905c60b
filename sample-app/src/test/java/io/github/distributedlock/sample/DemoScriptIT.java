package io.github.distributedlock.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the demo script against the packaged jar: three instances, concurrent deployments.
 * With the lock it must report no overlap; without it, its check must catch the overlaps.
 */
class DemoScriptIT {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldShowThatDeploymentsNeverOverlap() throws Exception {
		Result result = demo();
		assertThat(result.output()).contains("Three instances up")
			.contains("OK:")
			.contains("OK: every report period ran on one instance")
			.doesNotContain("--unsafe")
			.doesNotContain("FAIL:");
		assertThat(result.exitCode()).as(result.output()).isZero();
	}

	@Test
	void shouldCatchOverlapsWhenTheLockIsLeftOut() throws Exception {
		Result result = demo("--unsafe");
		assertThat(result.output()).contains("FAIL:").contains("overlap on srv-");
		// It says what it unlocked, and that the OK lines are of work still locked.
		assertThat(result.output()).contains("the deployments run WITHOUT their lock")
			.contains("Deployments, without their lock:")
			.contains("OK: every report period ran on one instance (still locked with --unsafe)")
			.contains("--unsafe unlocked the deployments only");
		assertThat(result.output().lines().filter((line) -> line.startsWith("OK:")))
			.allSatisfy((line) -> assertThat(line).contains("still locked with --unsafe"));
		assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
	}

	private static Result demo(String... args) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder("bash", Path.of("demo.sh").toAbsolutePath().toString());
		builder.command().addAll(java.util.List.of(args));
		builder.environment().put("DEMO_REDIS_PORT", Integer.toString(redis.server().port()));
		builder.environment().put("DEMO_PORTS", freePort() + " " + freePort() + " " + freePort());
		builder.redirectErrorStream(true);
		Process process = builder.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
		return new Result(process.exitValue(), output);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	record Result(int exitCode, String output) {

	}

}
