package io.github.distributedlock.redis;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names, in order, of a Lua script's {@code KEYS} or {@code ARGV}, as declared in the
 * script's header ({@code -- KEYS: lock, fence} and
 * {@code -- ARGV: owner, [keep_longer]}): a fixed list, then optional names
 * ({@code [name]}) or a group repeated once per lock ({@code (lock, fence)...}).
 *
 * @param fixed the names always passed
 * @param optional the names that may follow the fixed ones
 * @param repeated the group that follows the fixed ones once or more
 */
record ScriptSignature(List<String> fixed, List<String> optional, List<String> repeated) {

	private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

	private static final Pattern REPEATED = Pattern.compile("\\(([^()]*)\\)\\.\\.\\.");

	ScriptSignature {
		if (!optional.isEmpty() && !repeated.isEmpty()) {
			throw new IllegalArgumentException("A script signature has optional or repeated names, not both");
		}
	}

	/**
	 * Parse a declaration such as {@code owner, token, [keep_longer]} or
	 * {@code owner, (lease_ms)...}; an empty text declares nothing.
	 */
	static ScriptSignature parse(String declaration) {
		String text = declaration.strip();
		List<String> repeated = List.of();
		Matcher group = REPEATED.matcher(text);
		if (group.find()) {
			if (group.end() != text.length()) {
				throw invalid(declaration, "a repeated group must come last");
			}
			repeated = names(group.group(1), declaration);
			if (repeated.isEmpty()) {
				throw invalid(declaration, "a repeated group must name something");
			}
			text = text.substring(0, group.start()).strip();
			if (text.endsWith(",")) {
				text = text.substring(0, text.length() - 1);
			}
			else if (!text.isEmpty()) {
				throw invalid(declaration, "a comma must precede the repeated group");
			}
		}
		List<String> fixed = new java.util.ArrayList<>();
		List<String> optional = new java.util.ArrayList<>();
		for (String name : names(text, declaration)) {
			if (name.startsWith("[") && name.endsWith("]")) {
				optional.add(checked(name.substring(1, name.length() - 1), declaration));
			}
			else if (!optional.isEmpty()) {
				throw invalid(declaration, "'" + name + "' follows an optional name");
			}
			else {
				fixed.add(checked(name, declaration));
			}
		}
		return new ScriptSignature(List.copyOf(fixed), List.copyOf(optional), repeated);
	}

	private static List<String> names(String text, String declaration) {
		if (text.isBlank()) {
			return List.of();
		}
		List<String> names = new java.util.ArrayList<>();
		for (String part : text.split(",", -1)) {
			String name = part.strip();
			if (name.isEmpty()) {
				throw invalid(declaration, "a name is empty");
			}
			names.add(name);
		}
		return names;
	}

	private static String checked(String name, String declaration) {
		if (!NAME.matcher(name).matches()) {
			throw invalid(declaration, "'" + name + "' is not a name (lower case, digits and '_')");
		}
		return name;
	}

	private static IllegalArgumentException invalid(String declaration, String reason) {
		return new IllegalArgumentException("Invalid script signature '" + declaration + "': " + reason);
	}

	/**
	 * Return whether this many values match the signature.
	 */
	boolean accepts(int count) {
		int beyond = count - this.fixed.size();
		if (beyond < 0) {
			return false;
		}
		if (!this.repeated.isEmpty()) {
			return beyond > 0 && beyond % this.repeated.size() == 0;
		}
		return beyond <= this.optional.size();
	}

	@Override
	public String toString() {
		StringBuilder text = new StringBuilder(String.join(", ", this.fixed));
		for (String name : this.optional) {
			text.append((text.length() > 0) ? ", " : "").append('[').append(name).append(']');
		}
		if (!this.repeated.isEmpty()) {
			text.append((text.length() > 0) ? ", " : "")
				.append('(')
				.append(String.join(", ", this.repeated))
				.append(")...");
		}
		return text.toString();
	}

}
