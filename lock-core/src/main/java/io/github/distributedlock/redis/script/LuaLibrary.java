package io.github.distributedlock.redis.script;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The functions of {@code lib.lua}, each with the comment above it, and which of them a
 * script needs. A script is sent with only the functions it calls, directly or not, since
 * each function defined costs a closure on every call, used or not (docs/design/cost.md).
 * A script whose usual case returns early can mark the line after it with {@link #REST},
 * so that the functions only the code below calls are defined there; a script may have
 * several such marks.
 *
 * @param functions the text of each function, with the comment above it, by name, in the
 * library's order
 */
record LuaLibrary(Map<String, String> functions) {

	/**
	 * A line of a script where the library functions that the code below it (down to the
	 * next such line) calls are defined, unless defined already.
	 */
	static final String REST = "-- (lib.lua: the functions that only the code below calls)";

	private static final Pattern FUNCTION = Pattern.compile("(?m)^local function (\\w+)\\(");

	/**
	 * Read a library: comment lines, blank lines and {@code local function}s that end at
	 * an {@code end} in the first column, nothing else.
	 * @throws IllegalStateException if the library holds any other code
	 */
	static LuaLibrary parse(String name, String text) {
		Map<String, String> functions = new LinkedHashMap<>();
		StringBuilder comment = new StringBuilder();
		String[] lines = text.split("\r?\n", -1);
		for (int i = 0; i < lines.length; i++) {
			String line = lines[i];
			Matcher start = FUNCTION.matcher(line);
			if (start.lookingAt()) {
				StringBuilder function = new StringBuilder(comment);
				while (i < lines.length && !lines[i].equals("end")) {
					function.append(lines[i++]).append('\n');
				}
				if (i == lines.length) {
					throw new IllegalStateException("Lua library " + name + ": function " + start.group(1)
							+ " has no 'end' in the first column");
				}
				functions.put(start.group(1), function.append("end\n\n").toString());
				comment.setLength(0);
			}
			else if (line.startsWith("--")) {
				comment.append(line).append('\n');
			}
			else if (line.isBlank()) {
				comment.setLength(0);
			}
			else {
				throw new IllegalStateException("Lua library " + name + " line " + (i + 1)
						+ " is neither a comment nor a local function: '" + line + "'");
			}
		}
		return new LuaLibrary(functions);
	}

	/**
	 * Return the functions that a script calls, directly or through each other, in the
	 * library's order, so that each is defined before the functions that call it.
	 */
	String prelude(String script) {
		return definitions(needed(script), Set.of());
	}

	/**
	 * Return the script with the library functions it calls: before it, or, with
	 * {@link #REST} lines, before each block those of its functions not defined yet.
	 */
	String link(String script) {
		Matcher rest = Pattern.compile("(?m)^" + Pattern.quote(REST) + "[ \\t]*\\r?$").matcher(script);
		if (!rest.find()) {
			return prelude(script) + "\n" + script;
		}
		String head = script.substring(0, rest.start());
		Set<String> defined = needed(head);
		StringBuilder linked = new StringBuilder(definitions(defined, Set.of())).append("\n").append(head);
		int from = rest.end();
		while (from >= 0) {
			boolean another = rest.find();
			int to = another ? rest.start() : script.length();
			Set<String> needed = needed(script.substring(0, to));
			linked.append(definitions(needed, defined)).append(script, from, to);
			defined.addAll(needed);
			from = another ? rest.end() : -1;
		}
		return linked.toString();
	}

	private Set<String> needed(String script) {
		Set<String> needed = new LinkedHashSet<>();
		StringBuilder reached = new StringBuilder(script);
		boolean found = true;
		while (found) {
			found = false;
			for (Map.Entry<String, String> function : this.functions.entrySet()) {
				if (!needed.contains(function.getKey()) && calls(reached, function.getKey())) {
					needed.add(function.getKey());
					reached.append(function.getValue());
					found = true;
				}
			}
		}
		return needed;
	}

	private String definitions(Set<String> needed, Set<String> leftOut) {
		StringBuilder definitions = new StringBuilder();
		this.functions.forEach((function, text) -> {
			if (needed.contains(function) && !leftOut.contains(function)) {
				definitions.append(text);
			}
		});
		return definitions.toString();
	}

	private static boolean calls(CharSequence code, String function) {
		return Pattern.compile("(?<![\\w.:])" + function + "\\s*\\(").matcher(code).find();
	}

}
