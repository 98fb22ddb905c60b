package io.github.distributedlock.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the demo script against the packaged jar: three instances, concurrent deployments.
 * With the lock it must report no overlap; without it, its check must catch the overlaps.
 * The two runs go side by side, each with a redis-server of its own.
 */
class DemoScriptIT {

	@RegisterExtension
	static RedisServerExtension safeRedis = RedisServerExtension.dedicated();

	@RegisterExtension
	static RedisServerExtension unsafeRedis = RedisServerExtension.dedicated();

	private static Result safe;

	private static Result unsafe;

	@BeforeAll
	static void runBothDemos() throws Exception {
		Demo safeDemo = new Demo(safeRedis);
		Demo unsafeDemo = new Demo(unsafeRedis, "--unsafe");
		safe = safeDemo.result();
		unsafe = unsafeDemo.result();
	}

	@Test
	void shouldShowThatDeploymentsNeverOverlap() {
		assertThat(safe.output()).contains("Three instances up")
			.contains("OK:")
			.contains("OK: every report period ran on one instance")
			.doesNotContain("--unsafe")
			.doesNotContain("FAIL:");
		assertThat(safe.exitCode()).as(safe.output()).isZero();
	}

	@Test
	void shouldCatchOverlapsWhenTheLockIsLeftOut() {
		assertThat(unsafe.output()).contains("FAIL:").contains("overlap on srv-");
		// It says what it unlocked, and that the OK lines are of work still locked.
		assertThat(unsafe.output()).contains("the deployments run WITHOUT their lock")
			.contains("Deployments, without their lock:")
			.contains("OK: every report period ran on one instance (still locked with --unsafe)")
			.contains("--unsafe unlocked the deployments only");
		assertThat(unsafe.output().lines().filter((line) -> line.startsWith("OK:")))
			.allSatisfy((line) -> assertThat(line).contains("still locked with --unsafe"));
		assertThat(unsafe.exitCode()).as(unsafe.output()).isEqualTo(1);
	}

	/**
	 * One run of the demo script, started at once, its output kept in a file.
	 */
	private static final class Demo {

		private final Process process;

		private final Path output;

		Demo(RedisServerExtension redis, String... args) throws IOException {
			ProcessBuilder builder = new ProcessBuilder("bash", Path.of("demo.sh").toAbsolutePath().toString());
			builder.command().addAll(java.util.List.of(args));
			builder.environment().put("DEMO_REDIS_PORT", Integer.toString(redis.server().port()));
			builder.environment().put("DEMO_PORTS", freePort() + " " + freePort() + " " + freePort());
			this.output = Files.createTempFile("demo", ".log");
			builder.redirectErrorStream(true).redirectOutput(this.output.toFile());
			this.process = builder.start();
		}

		Result result() throws IOException, InterruptedException {
			boolean exited = this.process.waitFor(5, TimeUnit.MINUTES);
			if (!exited) {
				this.process.descendants().forEach(ProcessHandle::destroy);
				this.process.destroy();
			}
			String text = Files.readString(this.output);
			assertThat(exited).as("the demo ended within 5 minutes; its output:\n" + text).isTrue();
			return new Result(this.process.exitValue(), text);
		}

	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	record Result(int exitCode, String output) {

	}

}
