package io.github.distributedlock.benchmark.worker;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Memory and thread figures of this JVM, for the many-waiters scenario.
 */
final class JvmStats {

	private static final int MAX_COLLECTIONS = 20;

	private static final long STABLE_BYTES = 64 * 1024;

	private JvmStats() {
	}

	static long pid() {
		return ProcessHandle.current().pid();
	}

	/**
	 * Return the heap in use after full collections, so that only live objects count.
	 * Objects that only a cleaner or finalizer still reaches (class loading leaves
	 * plenty) go away one collection after those threads ran, so collect until the figure
	 * stops moving.
	 */
	static long liveHeapBytes() throws InterruptedException {
		long previous = Long.MAX_VALUE;
		for (int round = 0; round < MAX_COLLECTIONS; round++) {
			System.gc();
			long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
			if (Math.abs(previous - used) < STABLE_BYTES) {
				return used;
			}
			previous = used;
			Thread.sleep(50);
		}
		return previous;
	}

	/**
	 * Return the resident set size from {@code /proc/self/status}, or {@code -1} where
	 * there is none.
	 */
	static long residentBytes() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
				if (line.startsWith("VmRSS:")) {
					return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
				}
			}
		}
		catch (IOException | NumberFormatException ex) {
			// Not Linux: the report shows no figure.
		}
		return -1;
	}

	/**
	 * Return the number of live platform threads; virtual threads are not counted.
	 */
	static int platformThreads() {
		return ManagementFactory.getThreadMXBean().getThreadCount();
	}

	static int peakPlatformThreads() {
		return ManagementFactory.getThreadMXBean().getPeakThreadCount();
	}

}
