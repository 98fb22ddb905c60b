package io.github.distributedlock.leader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election is built on the public lock API alone: none of its sources names the
 * engine ({@code redis}), the aspect ({@code aop}) or the observation package, so that
 * the engine can change under it.
 */
class LeaderPackageSurfaceTests {

	private static final Path LEADER = Path.of("src/main/java/io/github/distributedlock/leader");

	@Test
	void shouldUseThePublicLockApiAlone() throws IOException {
		List<Path> sources;
		try (Stream<Path> files = Files.list(LEADER)) {
			sources = files.filter((file) -> file.toString().endsWith(".java")).toList();
		}
		assertThat(sources).hasSizeGreaterThan(5);
		for (Path source : sources) {
			assertThat(Files.readString(source)).as(source.getFileName().toString())
				.doesNotContain("io.github.distributedlock.redis")
				.doesNotContain("io.github.distributedlock.aop")
				.doesNotContain("io.github.distributedlock.observation");
		}
	}

}
