package io.github.distributedlock.chaos;

/**
 * One line of a worker's history, Jepsen style: an operation is invoked, then completes
 * as {@code ok}, fails ({@code fail}: it certainly did not take effect) or ends
 * indeterminate ({@code info}: it may have taken effect).
 *
 * @param nanos {@code System.nanoTime()} in the worker, comparable across processes on
 * one Linux machine
 * @param worker the worker's name
 * @param type {@code invoke}, {@code ok}, {@code fail} or {@code info}
 * @param op {@code acquire}, {@code write} or {@code release}
 * @param key the lock key
 * @param holdId the attempt this event belongs to, unique across the run
 * @param token the fencing token, or {@code -1} when there is none yet
 * @param detail a word about the outcome, such as {@code lease=1000}, {@code timeout} or
 * {@code lease-lost}
 */
record Event(long nanos, String worker, String type, String op, String key, String holdId, long token, String detail) {

	static final String INVOKE = "invoke";

	static final String OK = "ok";

	static final String FAIL = "fail";

	static final String INFO = "info";

	static final String ACQUIRE = "acquire";

	static final String WRITE = "write";

	static final String RELEASE = "release";

	private static final String PREFIX = "E ";

	static boolean isEvent(String line) {
		return line.startsWith(PREFIX);
	}

	static Event parse(String line) {
		String[] parts = line.split(" ", 9);
		if (parts.length != 9) {
			throw new IllegalArgumentException("Not a history line: " + line);
		}
		return new Event(Long.parseLong(parts[1]), parts[2], parts[3], parts[4], parts[5], parts[6],
				Long.parseLong(parts[7]), parts[8]);
	}

	String format() {
		// The detail comes last and may not contain line breaks; spaces inside it are
		// kept.
		return PREFIX + this.nanos + " " + this.worker + " " + this.type + " " + this.op + " " + this.key + " "
				+ this.holdId + " " + this.token + " " + this.detail.replace('\n', ' ');
	}

	boolean is(String type, String op) {
		return this.type.equals(type) && this.op.equals(op);
	}

}
