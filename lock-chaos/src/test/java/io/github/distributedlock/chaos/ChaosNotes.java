package io.github.distributedlock.chaos;

/**
 * Lets tests outside this package add measurements to the chaos summary.
 */
public final class ChaosNotes {

	private ChaosNotes() {
	}

	/**
	 * Add a line to a section of {@code docs/chaos/summary.md}, below the table of runs.
	 * @param section the section title
	 * @param line the line, in Markdown
	 */
	public static void note(String section, String line) {
		ChaosSummary.note(section, line);
	}

}
