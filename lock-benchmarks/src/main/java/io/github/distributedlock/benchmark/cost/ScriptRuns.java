package io.github.distributedlock.benchmark.cost;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The runs of one script in a trace: how many, which commands they ran, and the paths
 * they took (each run's commands in order), so that each command can be tied to a script
 * line. Filled by one thread, read after it is done.
 */
final class ScriptRuns {

	private final String script;

	private long runs;

	private final Map<String, Long> commands = new TreeMap<>();

	private final Map<String, Long> paths = new TreeMap<>();

	ScriptRuns(String script) {
		this.script = script;
	}

	void add(List<String> steps) {
		this.runs++;
		for (String step : steps) {
			this.commands.merge(command(step), 1L, Long::sum);
		}
		this.paths.merge(steps.isEmpty() ? "(no command)" : String.join(" ", steps), 1L, Long::sum);
	}

	/**
	 * Return the command of a path step such as {@code HSET/8} or
	 * {@code PUBLISH(reserved)}: {@code hset}, {@code publish}.
	 */
	static String command(String step) {
		int end = step.length();
		for (int i = 0; i < step.length(); i++) {
			if (step.charAt(i) == '/' || step.charAt(i) == '(') {
				end = i;
				break;
			}
		}
		return step.substring(0, end).toLowerCase(Locale.ROOT);
	}

	String script() {
		return this.script;
	}

	long runs() {
		return this.runs;
	}

	/**
	 * Return how often each command ran in this script, by lowercase name.
	 */
	Map<String, Long> commands() {
		return this.commands;
	}

	/**
	 * Return how often each path was taken: the commands of one run in order, with the
	 * argument count of writes that vary ({@code HSET/8}) and the kind of message
	 * ({@code PUBLISH(reserved)}).
	 */
	Map<String, Long> paths() {
		return this.paths;
	}

}
