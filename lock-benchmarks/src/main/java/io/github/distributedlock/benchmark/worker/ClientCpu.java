package io.github.distributedlock.benchmark.worker;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * The CPU time this worker JVM spent during one phase: the whole process's, every thread
 * and the GC included, without the busy waits that stand for the critical sections (they
 * cost the same whatever the library), and apart from it what the JIT compiler threads
 * used (code still being compiled, or compiled again after another library's phase in the
 * same JVM made shared code polymorphic). Thread-safe.
 */
final class ClientCpu {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	/**
	 * Nanoseconds per clock tick of {@code /proc}: USER_HZ is 100 on Linux.
	 */
	private static final long NANOS_PER_TICK = 10_000_000;

	// The first words of the compiler threads' names, as /proc truncates them.
	private static final String[] COMPILER_THREADS = { "C1 CompilerThre", "C2 CompilerThre" };

	private final LongSupplier processNanos;

	private final LongSupplier compilerNanos;

	private final long processStart;

	private final long compilerStart;

	private final LongAdder holdNanos = new LongAdder();

	ClientCpu(LongSupplier processNanos, LongSupplier compilerNanos) {
		this.processNanos = processNanos;
		this.compilerNanos = compilerNanos;
		this.processStart = processNanos.getAsLong();
		this.compilerStart = compilerNanos.getAsLong();
	}

	/**
	 * Start counting from now, with this process's CPU time.
	 * @return the count
	 */
	static ClientCpu start() {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		return new ClientCpu(os::getProcessCpuTime, ClientCpu::compilerThreadsNanos);
	}

	/**
	 * Return the CPU time the calling thread has used, for {@link #hold}.
	 */
	static long threadNanos() {
		return THREADS.getCurrentThreadCpuTime();
	}

	/**
	 * Leave out a critical section.
	 * @param threadNanos the CPU time the holding thread used in it
	 */
	void hold(long threadNanos) {
		this.holdNanos.add(threadNanos);
	}

	/**
	 * Return the JIT compiler threads' CPU time since the start.
	 */
	long compilerNanos() {
		return this.compilerNanos.getAsLong() - this.compilerStart;
	}

	/**
	 * Return the CPU time used since the start, without the critical sections and without
	 * the JIT compiler threads.
	 */
	long netNanos() {
		return this.processNanos.getAsLong() - this.processStart - this.holdNanos.sum() - compilerNanos();
	}

	/**
	 * Return the CPU time of the compiler threads from {@code /proc/self/task}, or 0
	 * where there is none (not Linux): the JVM does not show these threads to
	 * {@link ThreadMXBean}.
	 */
	static long compilerThreadsNanos() {
		long ticks = 0;
		try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
			for (Path task : tasks.toList()) {
				ticks += compilerTicks(task.resolve("stat"));
			}
		}
		catch (IOException ex) {
			// Not Linux: the JIT counts as client CPU.
		}
		return ticks * NANOS_PER_TICK;
	}

	private static long compilerTicks(Path stat) {
		String line;
		try {
			line = Files.readString(stat);
		}
		catch (IOException ex) {
			// The thread ended meanwhile.
			return 0;
		}
		return compilerTicks(line);
	}

	/**
	 * Return the user and system ticks of one line of {@code /proc/<pid>/task/<tid>/stat}
	 * if it is a compiler thread's, or 0. The name is in parentheses and may hold spaces;
	 * the ticks are the 12th and 13th fields after it.
	 */
	static long compilerTicks(String stat) {
		int open = stat.indexOf('(');
		int close = stat.lastIndexOf(')');
		if (open < 0 || close < open) {
			return 0;
		}
		String name = stat.substring(open + 1, close);
		boolean compiler = false;
		for (String prefix : COMPILER_THREADS) {
			compiler |= name.startsWith(prefix);
		}
		if (!compiler) {
			return 0;
		}
		String[] fields = stat.substring(close + 2).split(" ");
		return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
	}

}
