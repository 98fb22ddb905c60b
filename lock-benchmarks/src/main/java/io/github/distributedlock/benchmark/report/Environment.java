package io.github.distributedlock.benchmark.report;

/**
 * Where and how the benchmark ran.
 *
 * @param date when it started, ISO-8601 in UTC
 * @param mode {@code full} or {@code smoke}, with the phase lengths
 * @param engine the engine's git revision
 * @param jdk the Java runtime of the coordinator and the worker processes
 * @param waiterJdk the Java runtime of the many-waiters processes
 * @param redisVersion the redis-server version
 * @param cores available processors
 * @param cpu the CPU model
 * @param loadBefore the load average when the run started
 * @param loadAfter the load average when it ended
 */
public record Environment(String date, String mode, String engine, String jdk, String waiterJdk, String redisVersion,
		int cores, String cpu, String loadBefore, String loadAfter) {

	/**
	 * Return a copy with the figures known only at the end.
	 * @param waiterJdk the Java runtime of the many-waiters processes
	 * @param loadAfter the load average at the end
	 * @return the completed environment
	 */
	public Environment completed(String waiterJdk, String loadAfter) {
		return new Environment(this.date, this.mode, this.engine, this.jdk, waiterJdk, this.redisVersion, this.cores,
				this.cpu, this.loadBefore, loadAfter);
	}

}
