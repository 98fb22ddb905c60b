package io.github.distributedlock.benchmark;

/**
 * One line per measurement on the console, so a run that takes minutes shows where it is.
 */
final class Progress {

	private static long sectionStart = System.nanoTime();

	private Progress() {
	}

	static void report(String scenario, Library library, String figures) {
		System.out.printf("%-14s %-9s %s%n", scenario, library.id(), figures);
	}

	static void note(String text) {
		System.out.println("   " + text);
	}

	static synchronized void section(String title) {
		long now = System.nanoTime();
		System.out.printf("== %s (previous section took %.1f s)%n", title, (now - sectionStart) / 1e9);
		sectionStart = now;
	}

}
