package io.github.distributedlock.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds a Valkey 8.0 {@code valkey-server}, to run suites against Valkey besides Redis:
 * the {@value #PROPERTY} system property first, then the {@value #VARIABLE} environment
 * variable, then {@value #SHARED} beside the repository (the folder that holds
 * {@code .ci/run}), where this project's machines and CI keep one.
 * <p>
 * Without one, a test is skipped on a developer's machine, but fails in CI (the
 * {@code CI} environment variable is {@code true}), so that a missing binary can't pass
 * for a green Valkey run.
 */
public final class ValkeyBinary {

	/**
	 * The system property giving the path of {@code valkey-server}.
	 */
	public static final String PROPERTY = "valkey.server";

	/**
	 * The environment variable giving the path of {@code valkey-server}.
	 */
	public static final String VARIABLE = "VALKEY_SERVER";

	/**
	 * Where the binary is by default, relative to the repository's parent folder.
	 */
	public static final String SHARED = "shared/valkey/8.0.1/bin/valkey-server";

	private ValkeyBinary() {
	}

	/**
	 * Return the Valkey 8.0 binary, or skip the calling test when there is none outside
	 * CI.
	 * @return the executable
	 * @throws IllegalStateException if the property or variable names no executable file,
	 * or if there is no binary in CI
	 * @throws org.opentest4j.TestAbortedException if there is no binary outside CI
	 */
	public static Path valkey80() {
		return require(System::getProperty, System::getenv, Path.of("").toAbsolutePath());
	}

	static Path require(Function<String, @Nullable String> properties, Function<String, @Nullable String> env,
			Path workingDirectory) {
		Path binary = locate(properties, env, workingDirectory);
		if (binary != null) {
			return binary;
		}
		String missing = "No valkey-server found: set -D" + PROPERTY + " or " + VARIABLE + " to one, or put it at ../"
				+ SHARED + " from the repository";
		if ("true".equals(env.apply("CI"))) {
			throw new IllegalStateException(missing + " (CI=true, so the Valkey rows may not be skipped)");
		}
		Assumptions.abort(missing);
		throw new AssertionError("Assumptions.abort returned");
	}

	static @Nullable Path locate(Function<String, @Nullable String> properties, Function<String, @Nullable String> env,
			Path workingDirectory) {
		Path configured = configured(PROPERTY, properties.apply(PROPERTY));
		if (configured == null) {
			configured = configured(VARIABLE, env.apply(VARIABLE));
		}
		if (configured != null) {
			return configured;
		}
		for (Path directory = workingDirectory; directory != null; directory = directory.getParent()) {
			if (Files.isRegularFile(directory.resolve(".ci/run"))) {
				Path parent = directory.getParent();
				Path shared = (parent != null) ? parent.resolve(SHARED) : null;
				return (shared != null && isExecutable(shared)) ? shared : null;
			}
		}
		return null;
	}

	private static @Nullable Path configured(String name, @Nullable String value) {
		if (value == null || value.isBlank()) {
			return null;
		}
		Path path = Path.of(value);
		if (!isExecutable(path)) {
			throw new IllegalStateException(
					name + " is set to '" + value + "', which is not an executable file: fix or unset it");
		}
		return path;
	}

	private static boolean isExecutable(Path path) {
		return Files.isRegularFile(path) && Files.isExecutable(path);
	}

}
