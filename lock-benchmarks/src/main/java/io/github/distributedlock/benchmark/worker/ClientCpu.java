package io.github.distributedlock.benchmark.worker;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The CPU time this worker JVM spent on its lock client during one phase: the whole
 * process's CPU time, every thread and the GC and JIT included, without the busy waits
 * that stand for the critical sections, which cost the same whatever the library.
 * Thread-safe.
 */
final class ClientCpu {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private final LongSupplier processNanos;

	private final long start;

	private final LongAdder holdNanos = new LongAdder();

	ClientCpu(LongSupplier processNanos) {
		this.processNanos = processNanos;
		this.start = processNanos.getAsLong();
	}

	/**
	 * Start counting from now, with this process's CPU time.
	 * @return the count
	 */
	static ClientCpu start() {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		return new ClientCpu(os::getProcessCpuTime);
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
	 * Return the CPU time used since the start, without the critical sections.
	 */
	long netNanos() {
		return this.processNanos.getAsLong() - this.start - this.holdNanos.sum();
	}

}
