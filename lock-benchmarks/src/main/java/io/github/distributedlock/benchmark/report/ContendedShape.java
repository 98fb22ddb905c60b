package io.github.distributedlock.benchmark.report;

import java.util.List;

/**
 * How scenario 2 contends for its one key: how many worker processes, each with how many
 * threads.
 *
 * @param processes worker processes
 * @param threadsPerProcess threads in each process
 */
public record ContendedShape(int processes, int threadsPerProcess) {

	/**
	 * One thread in each of 2 processes.
	 */
	public static final ContendedShape TWO_PROCESSES = new ContendedShape(2, 1);

	/**
	 * One thread in each of 4 processes.
	 */
	public static final ContendedShape FOUR_PROCESSES = new ContendedShape(4, 1);

	/**
	 * 8 threads in each of 2 processes, so hand-offs go between threads of one process as
	 * well as across processes.
	 */
	public static final ContendedShape TWO_PROCESSES_EIGHT_THREADS = new ContendedShape(2, 8);

	/**
	 * 16 threads in one process, so every hand-off stays within that process: how a
	 * library passes the key between threads of one JVM.
	 */
	public static final ContendedShape ONE_PROCESS_SIXTEEN_THREADS = new ContendedShape(1, 16);

	/**
	 * Every shape scenario 2 measures, in report order, which is also the order they run
	 * in: the one-process shape comes last so that the shapes before it run as they did
	 * before it was added.
	 */
	public static final List<ContendedShape> ALL = List.of(TWO_PROCESSES, FOUR_PROCESSES, TWO_PROCESSES_EIGHT_THREADS,
			ONE_PROCESS_SIXTEEN_THREADS);

	/**
	 * Return the shape as a heading says it, such as {@code 2 processes},
	 * {@code 2 processes × 8 threads} or {@code 1 process × 16 threads}.
	 * @return the description
	 */
	public String describe() {
		return this.processes + ((this.processes == 1) ? " process" : " processes")
				+ ((this.threadsPerProcess > 1) ? " × " + this.threadsPerProcess + " threads" : "");
	}

	/**
	 * Return the shape in a few characters, such as {@code ×2}, {@code 2×8} or
	 * {@code 1×16}.
	 * @return the label
	 */
	public String label() {
		return (this.threadsPerProcess > 1) ? this.processes + "×" + this.threadsPerProcess : "×" + this.processes;
	}

}
