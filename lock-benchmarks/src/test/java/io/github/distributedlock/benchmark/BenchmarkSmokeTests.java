package io.github.distributedlock.benchmark;

import java.nio.file.Path;

import io.github.distributedlock.benchmark.report.BenchmarkResults;
import io.github.distributedlock.benchmark.report.ClusterResult;
import io.github.distributedlock.benchmark.report.ContendedResult;
import io.github.distributedlock.benchmark.report.ContendedShape;
import io.github.distributedlock.benchmark.report.RedisCost;
import io.github.distributedlock.benchmark.report.ReportWriter;
import io.github.distributedlock.benchmark.report.UncontendedResult;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every scenario for about a second against a real redis-server, so that the
 * benchmark keeps working. Timing figures are not asserted: they belong in the report,
 * not in a test.
 */
class BenchmarkSmokeTests {

	@Test
	void shouldMeasureEveryScenarioWithoutOverlaps(@TempDir Path output) {
		// Its cluster scenario sets cluster-port and ADDSLOTSRANGE, both new in Redis
		// 7.0.
		RedisServers.assumeAtLeast(7, "The benchmark's cluster scenario");
		BenchmarkResults results = BenchmarkMain.run(BenchmarkSettings.smoke(output));

		assertThat(results.failures()).isEmpty();
		// Scenario 1 measures the fenced floor beside the others.
		assertThat(results.uncontended()).extracting(UncontendedResult::library)
			.containsExactlyElementsOf(Library.uncontended())
			.contains(Library.FENCED_FLOOR);
		assertThat(results.uncontended()).allSatisfy((result) -> {
			assertThat(result.acquireRelease().count()).as(result.library().title()).isPositive();
			assertThat(result.commands().roundTrips()).as(result.library().title()).isPositive();
			assertThat(result.errors()).as(result.library().title()).isZero();
			assertCostMeasured(result.cost(), result.library().title());
			assertThat(result.cost().bytesPerHeldLock()).as(result.library().title()).isPositive();
		});
		// Scenario 2 measures the fenced floor in every shape, the engine floor with
		// processes of one thread, and the reactive template beside the blocking one,
		// with
		// 2 processes of one thread, then of 8.
		assertThat(results.contended()).filteredOn((result) -> result.library() == Library.THIS_PROJECT_REACTIVE)
			.extracting(ContendedResult::shape)
			.containsExactly(ContendedShape.TWO_PROCESSES, ContendedShape.TWO_PROCESSES_EIGHT_THREADS);
		assertThat(results.contended()).filteredOn((result) -> result.library() == Library.FENCED_FLOOR)
			.extracting(ContendedResult::shape)
			.containsExactlyElementsOf(ContendedShape.ALL);
		assertThat(results.contended()).filteredOn((result) -> result.library() == Library.ENGINE_FLOOR)
			.extracting(ContendedResult::shape)
			.containsExactly(ContendedShape.TWO_PROCESSES, ContendedShape.FOUR_PROCESSES);
		assertThat(results.contended()).hasSize(ContendedShape.ALL.size() * (Library.compared().size() + 2) + 2 + 2)
			.allSatisfy((result) -> {
				String name = result.library().title() + " with " + result.shape().describe();
				assertThat(result.acquisitions()).as(name).isPositive();
				assertThat(result.overlaps()).as(name).isZero();
				assertThat(result.commands().roundTrips()).as(name).isPositive();
				assertThat(result.errors()).as(name).isZero();
				assertCostMeasured(result.cost(), name);
			});
		assertThat(results.manyKeys()).hasSize(Library.compared().size()).allSatisfy((result) -> {
			assertThat(result.acquireRelease().count()).as(result.library().title()).isPositive();
			assertThat(result.overlaps()).as(result.library().title()).isZero();
			assertThat(result.errors()).as(result.library().title()).isZero();
			assertCostMeasured(result.cost(), result.library().title());
		});
		assertThat(results.crash()).hasSize(Library.compared().size()).allSatisfy((result) -> {
			assertThat(result.delaysMillis()).as(result.library().title()).isNotEmpty();
			assertThat(result.timeouts()).as(result.library().title()).isZero();
		});
		// Spring Integration 7.1.0 leaks a lock when one thread holds two whose keys
		// share a local lock stripe
		// (hash & 255); the 15 smoke keys share none, so every library must drain
		// completely here.
		assertThat(results.waiters()).hasSize(Library.compared().size() - 1).allSatisfy((result) -> {
			assertThat(result.acquisitions()).as(result.library().title()).isEqualTo(result.waiters());
			assertThat(result.overlaps()).as(result.library().title()).isZero();
			assertThat(result.errors()).as(result.library().title()).isZero();
			assertThat(result.leftLocked()).as(result.library().title()).isZero();
			assertCostMeasured(result.cost(), result.library().title());
			// The smoke run's 15 keys are too few to tell memory per held lock from
			// noise.
			assertThat(result.cost().bytesPerHeldLock()).as(result.library().title()).isNaN();
		});
		assertThat(results.cluster()).hasSize(2 * Library.compared().size()).allSatisfy((result) -> {
			String name = result.library().title() + " on " + result.masters() + " masters";
			assertThat(result.acquireRelease().count()).as(name).isPositive();
			assertThat(result.overlaps()).as(name).isZero();
			assertThat(result.errors()).as(name).isZero();
			assertThat(result.busiestMasterShare()).as(name).isPositive();
			assertCostMeasured(result.cost(), name);
		});
		assertThat(results.cluster()).extracting(ClusterResult::masters).containsOnly(1, 3);
		assertThat(results.jmh()).contains("LockKeyBenchmark", "LockRequestBenchmark", "TemplateOverheadBenchmark");
		assertThat(output.resolve(ReportWriter.REPORT)).content()
			.contains("## Targets", "## 5. Many waiters", "## 6. Many keys on Redis Cluster", "## Scale model",
					"## 2. Contended hand-off: 2 processes × 8 threads", "Redis CPU / acq. (main thread)",
					"keys left / name", "bytes / held lock");
		assertThat(output.resolve(ReportWriter.CHART)).content().startsWith("<svg").endsWith("</svg>\n");
	}

	/**
	 * Check that the figures of what a library cost Redis were produced, not what they
	 * are. Bytes left can dip below zero by allocator noise when a library leaves
	 * nothing, so only that they are numbers is checked, and that they are left out (NaN)
	 * over fewer than 100 lock names.
	 */
	private static void assertCostMeasured(RedisCost cost, String name) {
		assertThat(cost.cpuMicros()).as(name + ": Redis CPU").isFinite().isNotNegative();
		assertThat(cost.commands()).as(name + ": Redis commands").isPositive();
		assertThat(cost.names()).as(name + ": lock names").isPositive();
		assertThat(cost.keysLeftPerName()).as(name + ": keys left").isFinite().isNotNegative();
		if (cost.names() >= 100) {
			assertThat(cost.bytesLeftPerName()).as(name + ": bytes left").isFinite();
		}
		else {
			assertThat(cost.bytesLeftPerName()).as(name + ": bytes left").isNaN();
		}
	}

}
