package io.github.distributedlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The temporary directory of one launched server: its working directory, its log and its
 * console output.
 */
final class ServerDirectory {

	private static final int TAIL_LINES = 20;

	private final Path path;

	private ServerDirectory(Path path) {
		this.path = path;
	}

	static ServerDirectory create() {
		try {
			return new ServerDirectory(Files.createTempDirectory("redis-test-"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for redis-server", ex);
		}
	}

	Path path() {
		return this.path;
	}

	Path logFile() {
		return this.path.resolve("redis.log");
	}

	/**
	 * The configuration file, only written for servers that need one (Sentinel).
	 */
	Path configFile() {
		return this.path.resolve("redis.conf");
	}

	/**
	 * The server's stdout and stderr, which hold the errors it reports before it opens
	 * its log file.
	 */
	Path consoleFile() {
		return this.path.resolve("redis.out");
	}

	/**
	 * Return the last lines of the log and of the console output, to explain why a server
	 * did not start.
	 */
	String tail() {
		return tail(logFile()) + tail(consoleFile());
	}

	void delete() {
		try (Stream<Path> paths = Files.walk(this.path)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			// Only temporary files are left behind.
		}
	}

	private static String tail(Path file) {
		try {
			String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
			List<String> lines = Arrays.asList(text.split("\n"));
			int from = Math.max(0, lines.size() - TAIL_LINES);
			return String.join("\n", lines.subList(from, lines.size())) + "\n";
		}
		catch (IOException ex) {
			return "";
		}
	}

}
