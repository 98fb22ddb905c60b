package io.github.distributedlock.test;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parser for the {@code INFO commandstats} section.
 */
final class CommandStats {

	private static final String PREFIX = "cmdstat_";

	private CommandStats() {
	}

	static Map<String, Long> parse(String info) {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (line.startsWith(PREFIX) && colon > 0) {
				String name = normalize(line.substring(PREFIX.length(), colon));
				for (String field : line.substring(colon + 1).trim().split(",")) {
					if (field.startsWith("calls=")) {
						calls.put(name, Long.parseLong(field.substring("calls=".length())));
					}
				}
			}
		}
		return Collections.unmodifiableMap(calls);
	}

	static String normalize(String name) {
		return name.toLowerCase(Locale.ROOT);
	}

}
