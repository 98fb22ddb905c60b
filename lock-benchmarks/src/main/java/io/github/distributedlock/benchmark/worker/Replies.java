package io.github.distributedlock.benchmark.worker;

import java.io.PrintStream;

/**
 * Protocol lines to the coordinator on standard output, marked so that anything a library
 * prints is ignored.
 */
final class Replies {

	static final String MARK = "@@ ";

	private static final PrintStream OUT = System.out;

	private Replies() {
	}

	static void send(String line) {
		synchronized (OUT) {
			OUT.println(MARK + line);
			OUT.flush();
		}
	}

}
