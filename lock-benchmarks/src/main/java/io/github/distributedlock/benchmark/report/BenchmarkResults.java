package io.github.distributedlock.benchmark.report;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Everything one run measured.
 *
 * @param environment where and how it ran
 * @param uncontended scenario 1, one entry per library
 * @param contended scenario 2, one entry per library and process count
 * @param manyKeys scenario 3
 * @param crash scenario 4
 * @param waiters scenario 5 (no floor: it has no way to wait but spinning)
 * @param cluster scenario 6: scenario 3's load on a cluster of one master, then of three
 * @param failures scenarios that failed, each with its error; their results are missing
 * @param jmh the JMH summary table, or {@code null} when JMH did not run
 */
public record BenchmarkResults(Environment environment, List<UncontendedResult> uncontended,
		List<ContendedResult> contended, List<ManyKeysResult> manyKeys, List<CrashResult> crash,
		List<WaitersResult> waiters, List<ClusterResult> cluster, List<String> failures, @Nullable String jmh) {

	/**
	 * Return a copy with the JMH table.
	 * @param table the JMH summary table
	 * @return the results
	 */
	public BenchmarkResults withJmh(String table) {
		return new BenchmarkResults(this.environment, this.uncontended, this.contended, this.manyKeys, this.crash,
				this.waiters, this.cluster, this.failures, table);
	}

}
