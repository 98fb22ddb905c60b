package io.github.distributedlock.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ValkeyBinary}: where it looks, and when a missing binary skips or
 * fails.
 */
class ValkeyBinaryTests {

	private static final Function<String, @Nullable String> NONE = (name) -> null;

	@TempDir
	Path workplace;

	@Test
	void shouldFindTheSharedBinaryBesideTheRepositoryFromAModule() throws IOException {
		Path repository = repository();
		Path shared = executable(this.workplace.resolve(ValkeyBinary.SHARED));
		assertThat(ValkeyBinary.locate(NONE, NONE, repository.resolve("lock-core"))).isEqualTo(shared);
		assertThat(ValkeyBinary.locate(NONE, NONE, repository)).isEqualTo(shared);
	}

	@Test
	void shouldPreferThePropertyThenTheVariable() throws IOException {
		Path repository = repository();
		executable(this.workplace.resolve(ValkeyBinary.SHARED));
		Path fromProperty = executable(this.workplace.resolve("a/valkey-server"));
		Path fromVariable = executable(this.workplace.resolve("b/valkey-server"));
		Function<String, @Nullable String> env = Map.of(ValkeyBinary.VARIABLE, fromVariable.toString())::get;
		Function<String, @Nullable String> properties = Map.of(ValkeyBinary.PROPERTY, fromProperty.toString())::get;
		assertThat(ValkeyBinary.locate(properties, env, repository)).isEqualTo(fromProperty);
		assertThat(ValkeyBinary.locate(NONE, env, repository)).isEqualTo(fromVariable);
	}

	@Test
	void shouldRefuseAConfiguredPathThatIsNoExecutable() {
		Function<String, @Nullable String> properties = Map.of(ValkeyBinary.PROPERTY,
				this.workplace.resolve("missing").toString())::get;
		assertThatIllegalStateException().isThrownBy(() -> ValkeyBinary.locate(properties, NONE, this.workplace))
			.withMessageContaining(ValkeyBinary.PROPERTY);
	}

	@Test
	void shouldSkipWithoutABinaryOutsideCi() throws IOException {
		Path repository = repository();
		assertThatExceptionOfType(TestAbortedException.class)
			.isThrownBy(() -> ValkeyBinary.require(NONE, Map.of("CI", "false")::get, repository))
			.withMessageContaining("No valkey-server found");
		assertThatExceptionOfType(TestAbortedException.class)
			.isThrownBy(() -> ValkeyBinary.require(NONE, NONE, repository));
	}

	@Test
	void shouldFailWithoutABinaryInCi() throws IOException {
		Path repository = repository();
		assertThatIllegalStateException()
			.isThrownBy(() -> ValkeyBinary.require(NONE, Map.of("CI", "true")::get, repository))
			.withMessageContaining("No valkey-server found")
			.withMessageContaining("CI=true");
	}

	private Path repository() throws IOException {
		Path repository = this.workplace.resolve("repo");
		Files.createDirectories(repository.resolve(".ci"));
		Files.writeString(repository.resolve(".ci/run"), "#!/usr/bin/env bash\n");
		Files.createDirectories(repository.resolve("lock-core"));
		return repository;
	}

	private static Path executable(Path path) throws IOException {
		Files.createDirectories(path.getParent());
		Files.writeString(path, "#!/bin/sh\n");
		Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
		return path;
	}

}
