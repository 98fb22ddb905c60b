package io.github.distributedlock.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Facts about the machine for the report header.
 */
final class SystemFacts {

	private SystemFacts() {
	}

	static String javaVersion() {
		return System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version");
	}

	static String loadAverage() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
			return fields[0] + " / " + fields[1] + " / " + fields[2];
		}
		catch (IOException | RuntimeException ex) {
			return "unknown";
		}
	}

	static String cpuModel() {
		try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
			return lines.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst()
				.orElse("unknown CPU");
		}
		catch (IOException | RuntimeException ex) {
			return "unknown CPU";
		}
	}

	/**
	 * Describe the checked-out engine: the commit, and whether {@code lock-core} has
	 * uncommitted changes.
	 */
	static String engineRevision() {
		String commit = git("rev-parse", "--short", "HEAD");
		if (commit.isEmpty()) {
			return "unknown (no git)";
		}
		String changes = git("status", "--porcelain", "--", "lock-core");
		return commit + (changes.isEmpty() ? "" : " with uncommitted changes in lock-core");
	}

	private static String git(String... args) {
		List<String> command = new ArrayList<>(List.of("git"));
		command.addAll(List.of(args));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			return (process.waitFor() == 0) ? out : "";
		}
		catch (IOException ex) {
			return "";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
	}

	static void deleteRecursively(Path directory) {
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// A temporary directory left behind does no harm.
		}
	}

}
