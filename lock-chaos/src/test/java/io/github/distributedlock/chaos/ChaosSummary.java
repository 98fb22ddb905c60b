package io.github.distributedlock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The figures of every run, printed and rewritten to {@code docs/chaos/summary.md} (short
 * profile) or {@code docs/chaos/summary-long.md} (long profile) after each run, so the
 * file is complete when the suite ends. The suite runs in several test JVMs: each keeps
 * its runs in a part file of this build ({@code chaos.build}) under the work directory,
 * and rewrites the summary from every part, under a file lock. Shaped as the hand-written
 * pages are: short table cells (the recovery times of each run are a list below the
 * table) and prose lines of at most {@link #WIDTH} characters, but for a code span longer
 * than that.
 */
final class ChaosSummary {

	static final int WIDTH = 100;

	private static final String COLUMNS = """
			- ops: acquire operations invoked.
			- indeterminate: acquires that failed with an error, so Redis may have granted them.
			- violations: overlapping holds not explained by a provably expired lease or by a fault that
			  lost Redis data.
			- expired lease: proven by the holders' clocks (+ by Redis's clock, the tokens, where a reply
			  reached its holder too late to tell, or Redis's MONITOR record of the expiries it set, for
			  leases the watchdog renewed or a shared owner re-entered).
			- within one shared owner: holds of one custom owner in several processes, which are one
			  holder by design and not counted as overlaps.
			- same-token re-acquisitions: a thread got its own earlier token again, because a hold of its
			  own that it had given up on (an acquire whose reply was lost, or a release that never
			  reached Redis) was still there; the engine takes such a hold over, and releasing it frees
			  the lock, so the longest run of them stays within about one lease.
			""";

	private static final Pattern WORD = Pattern.compile("(?:`[^`]*`|[^\\s`]+|`)+");

	private static final Map<String, CheckReport> runs = new LinkedHashMap<>();

	private static final Map<String, List<String>> notes = new LinkedHashMap<>();

	private ChaosSummary() {
	}

	static synchronized void record(String run, CheckReport report) {
		runs.put(run, report);
		System.out.println(run + ": " + row(run, report));
		write();
	}

	/**
	 * Add a line to a section below the table, for measurements that are not a checked
	 * run.
	 */
	static synchronized void note(String section, String line) {
		notes.computeIfAbsent(section, (name) -> new ArrayList<>()).add(line);
		System.out.println(section + ": " + line);
		write();
	}

	static String profile() {
		return System.getProperty("chaos.profile", "short");
	}

	private static void write() {
		Path dir = Path.of(System.getProperty("chaos.summaryDir", "target/chaos"));
		Path file = dir.resolve(profile().equals("long") ? "summary-long.md" : "summary.md");
		Path parts = Path.of(System.getProperty("chaos.workDir", "target/chaos"))
			.resolve("summary-" + profile())
			.resolve(System.getProperty("chaos.build", "unknown"));
		try {
			Files.createDirectories(parts);
			Files.createDirectories(dir);
			try (FileChannel lockFile = FileChannel.open(parts.resolve("lock"), StandardOpenOption.CREATE,
					StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
				Files.write(parts.resolve(ProcessHandle.current().pid() + ".part"), part(), StandardCharsets.UTF_8);
				List<String> lines = new ArrayList<>();
				try (Stream<Path> files = Files.list(parts)) {
					for (Path part : files.filter((path) -> path.toString().endsWith(".part")).sorted().toList()) {
						lines.addAll(Files.readAllLines(part, StandardCharsets.UTF_8));
					}
				}
				Files.writeString(file, summary(lines), StandardCharsets.UTF_8);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * This JVM's runs and notes, a line each: {@code R}, a table row; {@code V}, a run's
	 * recovery line; {@code N}, a note of a section; fields separated by tabs.
	 */
	private static List<String> part() {
		List<String> lines = new ArrayList<>();
		runs.forEach((run, report) -> lines.add("R\t| " + run + " | " + row(run, report) + " |"));
		runs.forEach((run, report) -> recoveries(report).forEach((line) -> lines.add("V\t" + run + "\t" + line)));
		notes.forEach((section, noted) -> noted.forEach((line) -> lines.add("N\t" + section + "\t" + line)));
		return lines;
	}

	private static String summary(List<String> parts) {
		List<String> rows = new ArrayList<>();
		Map<String, List<String>> recoveries = new LinkedHashMap<>();
		Map<String, List<String>> allNotes = new LinkedHashMap<>();
		for (String line : parts) {
			String[] fields = line.split("\t", 3);
			switch (fields[0]) {
				case "R" -> rows.add(fields[1]);
				case "V" -> recoveries.computeIfAbsent(fields[1], (run) -> new ArrayList<>()).add(fields[2]);
				case "N" -> allNotes.computeIfAbsent(fields[1], (section) -> new ArrayList<>()).add(fields[2]);
				default -> throw new IllegalStateException("Not a summary part line: " + line);
			}
		}
		StringBuilder text = new StringBuilder();
		text.append("# Chaos summary (").append(profile()).append(" profile)\n\n");
		text.append("Generated by `lock-chaos` on ")
			.append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
			.append("; see [README.md](README.md) for what each column\nmeans and how to run it.\n\n");
		text.append("| run | ops | acquired | indeterminate | faults | violations "
				+ "| overlaps: expired lease / lost data | same-token re-acquisitions | stale writes rejected "
				+ "| stale writes accepted | token order | liveness |\n");
		text.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
		rows.forEach((row) -> text.append(row).append('\n'));
		text.append('\n').append(COLUMNS);
		text.append("\n## Recovery\n\nHow long after each fault every key was held again (after a fault on a "
				+ "holder: its key,\nby another): p50 / p99 / max (recovered / faults).\n\n");
		recoveries.forEach((run, lines) -> {
			text.append("- ").append(run).append(":\n");
			lines.forEach((line) -> text.append(wrap("  - " + line)).append('\n'));
		});
		allNotes.forEach((section, lines) -> {
			text.append("\n## ").append(section).append("\n\n");
			lines.forEach((line) -> text.append(wrap(line)).append('\n'));
		});
		return text.toString();
	}

	private static String row(String run, CheckReport report) {
		return report.attempts() + " | " + report.acquisitions() + " | " + report.indeterminate() + " | "
				+ report.faultCount() + " | " + report.exclusionViolations().size() + " | " + report.overlapsByExpiry()
				+ ((report.overlapsByRedisClock() > 0) ? " + " + report.overlapsByRedisClock() : "") + " / "
				+ report.overlapsByDataLoss()
				+ ((report.overlapsSameOwner() > 0) ? " (" + report.overlapsSameOwner() + " within one shared owner)"
						: "")
				+ " | " + report.ghostReentries()
				+ ((report.ghostReentries() > 0) ? " (longest " + report.longestGhostChain().toMillis() + " ms)" : "")
				+ " | " + report.staleWritesRejected() + " | " + report.staleWritesAccepted().size() + " | "
				+ report.tokenOrderViolations().size() + " | " + report.livenessViolations().size();
	}

	private static List<String> recoveries(CheckReport report) {
		List<String> parts = new ArrayList<>();
		report.faults().forEach((kind, count) -> {
			List<Duration> times = report.recoveries().getOrDefault(kind, List.of());
			parts.add(kind + ": " + percentiles(times) + " (" + times.size() + "/" + count + ")");
		});
		return parts.isEmpty() ? List.of("no faults") : parts;
	}

	/**
	 * Wrap a note at {@link #WIDTH} characters, continuing a list item under its text,
	 * without splitting a code span.
	 */
	static String wrap(String line) {
		String words = line.stripLeading();
		String lead = line.substring(0, line.length() - words.length());
		String indent = words.startsWith("- ") ? lead + "  " : lead;
		StringBuilder wrapped = new StringBuilder();
		StringBuilder current = new StringBuilder(lead);
		boolean empty = true;
		Matcher word = WORD.matcher(words);
		while (word.find()) {
			if (!empty && current.length() + 1 + word.group().length() > WIDTH) {
				wrapped.append(current).append('\n');
				current = new StringBuilder(indent);
				empty = true;
			}
			if (!empty) {
				current.append(' ');
			}
			current.append(word.group());
			empty = false;
		}
		return wrapped.append(current).toString();
	}

	static String percentiles(List<Duration> times) {
		if (times.isEmpty()) {
			return "-";
		}
		List<Long> millis = times.stream().map(Duration::toMillis).sorted().toList();
		return percentile(millis, 50) + " / " + percentile(millis, 99) + " / " + millis.get(millis.size() - 1) + " ms";
	}

	/**
	 * Nearest-rank percentile.
	 */
	static long percentile(List<Long> sorted, int percent) {
		int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
		return sorted.get(Math.max(0, rank - 1));
	}

}
