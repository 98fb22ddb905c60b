package io.github.distributedlock.benchmark.cost;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes the phases' costs as Markdown: one summary table, then for each phase every
 * command per acquisition by where it ran, and the paths each script took.
 */
final class CostReport {

	private CostReport() {
	}

	static String markdown(String header, List<PhaseCost> phases) {
		StringBuilder out = new StringBuilder(header);
		out.append(
				"\n| phase | acquisitions | round trips / acq. | scripts / acq. | Redis commands / acq. (Lua included) | same without MONITOR: commands (script calls) "
						+ "| TIME / acq. | PUBLISH / acq. | keyspace hits / misses per acq. | request bytes / acq. "
						+ "| keys left / name | channels / subscriptions at end | overlaps / token regressions / timeouts "
						+ "| hand-offs |\n");
		out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (PhaseCost phase : phases) {
			CostWorkload.Outcome outcome = phase.outcome();
			out.append("| ").append(phase.name());
			cell(out, Long.toString(outcome.acquisitions()));
			cell(out, number(phase.roundTrips()) + " (" + perName(phase, phase.traced().sent()) + ")");
			cell(out, number(phase
				.perAcquisition(phase.traced().scripts().values().stream().mapToLong(ScriptRuns::runs).sum())));
			cell(out, number(phase.commands()));
			cell(out, number(phase.unwatchedCommands()) + " ("
					+ number(phase.unwatched("fcall") + phase.unwatched("evalsha")) + ")");
			cell(out, number(phase.perAcquisition(phase.moved().calls().getOrDefault("time", 0L))));
			cell(out, number(phase.perAcquisition(phase.moved().calls().getOrDefault("publish", 0L))));
			cell(out, number(phase.perAcquisition(phase.moved().stat("keyspace_hits"))) + " / "
					+ number(phase.perAcquisition(phase.moved().stat("keyspace_misses"))));
			cell(out, String.format(Locale.ROOT, "%.0f",
					phase.perAcquisition(phase.moved().stat("total_net_input_bytes"))));
			cell(out,
					number((double) phase.left().total() / Math.max(1, outcome.names())) + " ("
							+ phase.left()
								.keys()
								.entrySet()
								.stream()
								.map((kind) -> kind.getKey() + " " + kind.getValue())
								.collect(Collectors.joining(", "))
							+ ")");
			cell(out, phase.left().channels() + " / " + phase.left().subscriptions());
			cell(out, outcome.overlaps() + " / " + outcome.tokenRegressions() + " / " + outcome.timeouts());
			cell(out, Long.toString(outcome.handOffs()));
			out.append(" |\n");
		}
		for (PhaseCost phase : phases) {
			phase(out, phase);
		}
		return out.toString();
	}

	private static void phase(StringBuilder out, PhaseCost phase) {
		out.append("\n## ").append(phase.name()).append("\n\n").append(phase.description()).append("\n\n");
		List<ScriptRuns> scripts = new ArrayList<>(phase.traced().scripts().values());
		scripts.sort(Comparator.comparing(ScriptRuns::runs).reversed());
		out.append("| command | per acq. (INFO commandstats) | without MONITOR | sent by a client");
		scripts.forEach((script) -> out.append(" | in ").append(script.script()));
		out.append(" |\n|---|---|---|---");
		scripts.forEach((script) -> out.append("|---"));
		out.append("|\n");
		phase.moved()
			.calls()
			.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
			.forEach((command) -> {
				out.append("| ").append(command.getKey());
				cell(out, number(phase.perAcquisition(command.getValue())));
				cell(out, number(phase.unwatched(command.getKey())));
				cell(out, number(phase.perAcquisition(phase.traced().sent().getOrDefault(command.getKey(), 0L))));
				scripts.forEach((script) -> cell(out,
						number(phase.perAcquisition(script.commands().getOrDefault(command.getKey(), 0L)))));
				out.append(" |\n");
			});
		out.append("| **total**");
		cell(out, "**" + number(phase.commands()) + "**");
		cell(out, number(phase.unwatchedCommands()));
		cell(out, number(phase.roundTrips()));
		scripts.forEach((script) -> cell(out,
				number(phase.perAcquisition(script.commands().values().stream().mapToLong(Long::longValue).sum()))));
		out.append(" |\n");
		List<String> untraced = phase.untraced();
		if (!untraced.isEmpty()) {
			out.append("\nCounted by Redis but not traced (or the reverse): ")
				.append(String.join("; ", untraced))
				.append("\n");
		}
		out.append("\n| script | path (commands in order) | runs / acq. |\n|---|---|---|\n");
		for (ScriptRuns script : scripts) {
			script.paths()
				.entrySet()
				.stream()
				.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
				.forEach((path) -> out.append("| ")
					.append(script.script())
					.append(" | `")
					.append(path.getKey())
					.append("` | ")
					.append(number(phase.perAcquisition(path.getValue())))
					.append(" |\n"));
		}
	}

	private static String perName(PhaseCost phase, Map<String, Long> counts) {
		return counts.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.map((entry) -> entry.getKey() + " " + number(phase.perAcquisition(entry.getValue())))
			.collect(Collectors.joining(", "));
	}

	private static void cell(StringBuilder out, String text) {
		out.append(" | ").append(text);
	}

	static String number(double value) {
		return String.format(Locale.ROOT, "%.2f", value);
	}

}
