package io.github.distributedlock.test;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Parser for the {@code field:value} lines of {@code INFO} and {@code CLUSTER INFO}
 * replies.
 */
final class InfoFields {

	private InfoFields() {
	}

	static Map<String, String> parse(@Nullable Object reply) {
		Map<String, String> fields = new LinkedHashMap<>();
		if (reply instanceof String text) {
			for (String line : text.split("\r?\n")) {
				int colon = line.indexOf(':');
				if (colon > 0 && !line.startsWith("#")) {
					fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
				}
			}
		}
		return Collections.unmodifiableMap(fields);
	}

	/**
	 * Return the {@code field value} pairs of a flat array reply, such as the entries of
	 * {@code SENTINEL replicas}.
	 */
	static Map<String, String> ofPairs(@Nullable Object reply) {
		Map<String, String> fields = new LinkedHashMap<>();
		if (reply instanceof List<?> items) {
			for (int i = 0; i + 1 < items.size(); i += 2) {
				fields.put(String.valueOf(items.get(i)), String.valueOf(items.get(i + 1)));
			}
		}
		return Collections.unmodifiableMap(fields);
	}

}
