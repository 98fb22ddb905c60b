package io.github.distributedlock.test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} executable: {@code REDIS_SERVER} first, then the {@code PATH}.
 */
final class RedisBinary {

	static final String NAME = "redis-server";

	static final String NOT_FOUND = "No redis-server binary found. Install one (apt-get install -y redis-server, "
			+ "or brew install redis) or set REDIS_SERVER to its path";

	private RedisBinary() {
	}

	static @Nullable Path locate(Function<String, @Nullable String> env) {
		String configured = env.apply("REDIS_SERVER");
		if (configured != null && !configured.isBlank()) {
			Path path = configured.contains(File.separator) ? Path.of(configured) : onPath(configured, env);
			if (path == null || !isExecutable(path)) {
				throw new IllegalStateException("REDIS_SERVER is set to '" + configured
						+ "', which is not an executable file: fix or unset it");
			}
			return path;
		}
		return onPath(NAME, env);
	}

	static Path require(Function<String, @Nullable String> env) {
		Path binary = locate(env);
		if (binary == null) {
			throw new IllegalStateException(NOT_FOUND);
		}
		return binary;
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
