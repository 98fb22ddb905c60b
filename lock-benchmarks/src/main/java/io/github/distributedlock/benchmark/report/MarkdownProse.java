package io.github.distributedlock.benchmark.report;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Wraps the prose lines of a Markdown text at {@link #WIDTH} characters, as the
 * hand-written pages are, so that the report reads in an editor and a diff. Tables,
 * headings, code blocks and HTML are left alone; a list item or a quote keeps its
 * marker's indentation on the lines it continues on, and no code span is split. A word
 * longer than the width stays whole on a line of its own. Wrapping twice gives what
 * wrapping once gave.
 */
final class MarkdownProse {

	/** The longest prose line, but for a word that is longer. */
	static final int WIDTH = 100;

	private static final Pattern MARKER = Pattern.compile("^(\\s*(?:> )?(?:[-*] |\\d+\\. )?)(.*)$");

	private static final Pattern WORD = Pattern.compile("(?:`[^`]*`|[^\\s`]+|`)+");

	private MarkdownProse() {
	}

	static String wrap(String markdown) {
		StringBuilder wrapped = new StringBuilder();
		boolean inCode = false;
		for (String line : markdown.split("\n", -1)) {
			if (line.strip().startsWith("```")) {
				inCode = !inCode;
			}
			boolean kept = inCode || line.length() <= WIDTH || line.startsWith("|") || line.startsWith("#")
					|| line.startsWith("<") || line.strip().startsWith("```");
			wrapped.append(kept ? line : wrapLine(line)).append('\n');
		}
		return wrapped.substring(0, wrapped.length() - 1);
	}

	private static String wrapLine(String line) {
		Matcher marker = MARKER.matcher(line);
		marker.matches();
		String first = marker.group(1);
		String next = first.startsWith("> ") ? "> " + " ".repeat(first.length() - 2) : " ".repeat(first.length());
		List<String> lines = new ArrayList<>();
		StringBuilder current = new StringBuilder(first);
		int start = first.length();
		Matcher word = WORD.matcher(marker.group(2));
		while (word.find()) {
			if (current.length() > start && current.length() + 1 + word.group().length() > WIDTH) {
				lines.add(current.toString());
				current = new StringBuilder(next);
				start = next.length();
			}
			if (current.length() > start) {
				current.append(' ');
			}
			current.append(word.group());
		}
		lines.add(current.toString());
		return String.join("\n", lines);
	}

}
