package io.github.distributedlock.test;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link JvmProcess}.
 */
class JvmProcessTests {

	private static final Duration START = Duration.ofSeconds(60);

	@Test
	void shouldPassArgumentsReadLinesAndReportTheExitCode() {
		try (JvmProcess child = JvmProcess.start(JvmProcessTestMain.class, "one", "two words")) {
			assertThat(child.awaitLine("ARG", START)).isEqualTo("ARG one");
			assertThat(child.awaitLine("ARG", START)).isEqualTo("ARG two words");
			child.awaitLine("READY", START);
			child.send("echo héllo");
			assertThat(child.awaitLine("ECHO", START)).isEqualTo("ECHO héllo");
			child.send("exit 3");
			assertThat(child.awaitExit(START)).isEqualTo(3);
			assertThat(child.isAlive()).isFalse();
		}
	}

	@Test
	void shouldShowOnlyTheLinesTheFilterKeeps() {
		try (JvmProcess child = JvmProcess.builder(JvmProcessTestMain.class)
			.args("dropped")
			.lines((line) -> line.startsWith("ARG") ? null : line.toLowerCase())
			.start()) {
			assertThat(child.awaitLine((line) -> true, "any line", START)).isEqualTo("ready");
		}
	}

	@Test
	void shouldFailFastWithTheLogTailWhenTheChildEndsFirst(@TempDir Path dir) {
		try (JvmProcess child = JvmProcess.builder(JvmProcessTestMain.class)
			.name("test child")
			.errorTo(dir.resolve("child.log"))
			.start()) {
			child.awaitLine("READY", START);
			child.send("exit 7");
			long start = System.nanoTime();
			assertThatIllegalStateException().isThrownBy(() -> child.awaitLine("NEVER", Duration.ofMinutes(5)))
				.withMessageContaining("test child ended (exit code 7) before printing a line starting with 'NEVER'")
				.withMessageContaining("started with 0 arguments");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMinutes(1));
		}
	}

	@Test
	void shouldNotAnswerWhilePaused() {
		try (JvmProcess child = JvmProcess.start(JvmProcessTestMain.class)) {
			child.awaitLine("READY", START);
			child.pause();
			assertThat(child.isPaused()).isTrue();
			child.send("echo while paused");
			assertThatIllegalStateException().isThrownBy(() -> child.awaitLine("ECHO", Duration.ofMillis(500)))
				.withMessageContaining("did not print a line starting with 'ECHO' within PT0.5S (alive: true)");
			child.resume();
			assertThat(child.isPaused()).isFalse();
			assertThat(child.awaitLine("ECHO", START)).isEqualTo("ECHO while paused");
		}
	}

	@Test
	void shouldKillWithoutShutdownHooks() {
		try (JvmProcess child = JvmProcess.start(JvmProcessTestMain.class)) {
			child.awaitLine("READY", START);
			child.pause();
			child.kill();
			assertThat(child.isAlive()).isFalse();
		}
	}

}
