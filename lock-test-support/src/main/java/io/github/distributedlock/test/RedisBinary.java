package io.github.distributedlock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} that tests launch: {@code REDIS_SERVER} first, then the
 * {@code PATH}, then the Redis 6.2 bundled in the {@code embedded-redis} jar, so that a
 * machine with only a JDK and Maven runs the suites too.
 */
final class RedisBinary {

	static final String NAME = "redis-server";

	static final String NOT_FOUND = "No redis-server binary found, and the one bundled in the embedded-redis jar "
			+ "runs on Linux x86-64 only. Install one (apt-get install -y redis-server, or brew install redis) or "
			+ "set REDIS_SERVER to its path";

	private static final Map<Path, String> SOURCES = new ConcurrentHashMap<>();

	private static final Map<Path, String> VERSIONS = new ConcurrentHashMap<>();

	private static final Pattern SERVER_VERSION = Pattern.compile("(\\w+) server v=(\\S+)");

	private static final Pattern VERSION = Pattern.compile(" (\\d+)\\.");

	private RedisBinary() {
	}

	static @Nullable Path locate(Function<String, @Nullable String> env) {
		Path configured = configured("REDIS_SERVER", env);
		if (configured != null) {
			SOURCES.putIfAbsent(configured, "from REDIS_SERVER");
			return configured;
		}
		Path found = onPath(NAME, env);
		if (found != null) {
			SOURCES.putIfAbsent(found, "from the PATH");
		}
		return found;
	}

	/**
	 * Return the installed binary, or else the bundled Redis 6.2 where it runs.
	 * @throws IllegalStateException saying what to install when there is neither
	 */
	static Path require(Function<String, @Nullable String> env) {
		Path binary = locate(env);
		if (binary != null) {
			return binary;
		}
		if (!BundledRedis.runsHere()) {
			throw new IllegalStateException(NOT_FOUND);
		}
		Path bundled = BundledRedis.redis62();
		SOURCES.putIfAbsent(bundled, "bundled in the embedded-redis jar: no redis-server on the PATH");
		return bundled;
	}

	/**
	 * Say where a binary came from, for the line each launch prints.
	 */
	static String sourceOf(Path binary) {
		return SOURCES.getOrDefault(binary, "chosen by the test");
	}

	/**
	 * Describe a binary for the test output: its path, version and where it came from.
	 */
	static String describe(Path binary) {
		return binary + " (" + version(binary) + ", " + sourceOf(binary) + ")";
	}

	/**
	 * Return the major version of a binary, from its {@code --version} output.
	 */
	static int majorVersion(Path binary) {
		Matcher matcher = VERSION.matcher(version(binary));
		if (!matcher.find()) {
			throw new IllegalStateException("Could not read the version of " + binary + ": " + version(binary));
		}
		return Integer.parseInt(matcher.group(1));
	}

	private static String version(Path binary) {
		return VERSIONS.computeIfAbsent(binary, RedisBinary::readVersion);
	}

	private static String readVersion(Path binary) {
		try {
			Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
			process.getOutputStream().close();
			String output;
			try (InputStream in = process.getInputStream()) {
				output = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
			}
			process.waitFor(10, TimeUnit.SECONDS);
			// "Redis server v=7.0.15 sha=...", "Valkey server v=8.0.1 sha=..."
			Matcher matcher = SERVER_VERSION.matcher(output);
			return matcher.find() ? matcher.group(1) + " " + matcher.group(2) : output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + binary + " --version", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + binary + " --version", ex);
		}
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
