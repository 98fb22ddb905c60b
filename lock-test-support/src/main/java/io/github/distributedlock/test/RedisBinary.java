package io.github.distributedlock.test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Finds the Redis executables: {@code redis-server} ({@code REDIS_SERVER} first, then the
 * {@code PATH}) and {@code redis-cli} ({@code REDIS_CLI} first, then next to
 * {@code redis-server}, then the {@code PATH}).
 */
final class RedisBinary {

	static final String NAME = "redis-server";

	static final String CLI_NAME = "redis-cli";

	static final String NOT_FOUND = "No redis-server binary found. Install one (apt-get install -y redis-server, "
			+ "or brew install redis) or set REDIS_SERVER to its path";

	static final String CLI_NOT_FOUND = "No redis-cli binary found next to redis-server or on the PATH. Install one "
			+ "(apt-get install -y redis-tools, or brew install redis) or set REDIS_CLI to its path";

	private RedisBinary() {
	}

	static @Nullable Path locate(Function<String, @Nullable String> env) {
		Path configured = configured("REDIS_SERVER", env);
		return (configured != null) ? configured : onPath(NAME, env);
	}

	static Path require(Function<String, @Nullable String> env) {
		Path binary = locate(env);
		if (binary == null) {
			throw new IllegalStateException(NOT_FOUND);
		}
		return binary;
	}

	/**
	 * Find {@code redis-cli}, preferring the one next to {@code redis-server} so that
	 * both come from the same build.
	 */
	static @Nullable Path locateCli(Function<String, @Nullable String> env) {
		Path configured = configured("REDIS_CLI", env);
		if (configured != null) {
			return configured;
		}
		Path server = locate(env);
		Path directory = (server != null) ? server.toAbsolutePath().getParent() : null;
		if (directory != null && isExecutable(directory.resolve(CLI_NAME))) {
			return directory.resolve(CLI_NAME);
		}
		return onPath(CLI_NAME, env);
	}

	static Path requireCli(Function<String, @Nullable String> env) {
		Path binary = locateCli(env);
		if (binary == null) {
			throw new IllegalStateException(CLI_NOT_FOUND);
		}
		return binary;
	}

	private static @Nullable Path configured(String variable, Function<String, @Nullable String> env) {
		String configured = env.apply(variable);
		if (configured == null || configured.isBlank()) {
			return null;
		}
		Path path = configured.contains(File.separator) ? Path.of(configured) : onPath(configured, env);
		if (path == null || !isExecutable(path)) {
			throw new IllegalStateException(
					variable + " is set to '" + configured + "', which is not an executable file: fix or unset it");
		}
		return path;
	}

	private static @Nullable Path onPath(String name, Function<String, @Nullable String> env) {
		String searchPath = env.apply("PATH");
		if (searchPath == null) {
			return null;
		}
		for (String directory : searchPath.split(File.pathSeparator)) {
			if (!directory.isEmpty()) {
				try {
					Path candidate = Path.of(directory, name);
					if (isExecutable(candidate)) {
						return candidate;
					}
				}
				catch (InvalidPathException ex) {
					// A malformed PATH entry cannot hold the binary.
				}
			}
		}
		return null;
	}

	private static boolean isExecutable(Path path) {
		return Files.isRegularFile(path) && Files.isExecutable(path);
	}

}
