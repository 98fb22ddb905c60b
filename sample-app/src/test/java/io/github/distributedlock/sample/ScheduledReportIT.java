package io.github.distributedlock.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Three instances of the packaged sample run {@link ReportJob}, each on its own cron, and
 * the runs are counted per period across all of them. Aligned to the clock and kept for
 * half a period, each period runs exactly once, although the job takes well under a
 * millisecond. An instance whose trigger fires a second late (a skewed clock) runs the
 * same period again unless the minimum hold covers the skew.
 * <p>
 * The three cases run side by side, each with three instances on a redis-server of its
 * own, started one case after another, and their runs are counted over one window that
 * opens once all nine are up, so that no instance starts while the others' runs are
 * counted.
 */
class ScheduledReportIT {

	private static final String EVERY_SECOND = "* * * * * *";

	private static final String EVEN_SECONDS = "0/2 * * * * *";

	private static final String ODD_SECONDS = "1/2 * * * * *";

	/** Spring's "disabled" cron: the instance is up but never runs the job. */
	private static final String NEVER = "-";

	private static final Pattern RUN = Pattern.compile("Report run \\d+ on (\\S+) at (\\d+)");

	@RegisterExtension
	static RedisServerExtension everySecondRedis = RedisServerExtension.dedicated();

	@RegisterExtension
	static RedisServerExtension coveredRedis = RedisServerExtension.dedicated();

	@RegisterExtension
	static RedisServerExtension uncoveredRedis = RedisServerExtension.dedicated();

	private static final Group everySecond = new Group(everySecondRedis, 1000, "500ms", EVERY_SECOND, EVERY_SECOND,
			EVERY_SECOND);

	private static final Group lateCovered = new Group(coveredRedis, 2000, "1500ms", EVEN_SECONDS, ODD_SECONDS, NEVER);

	private static final Group lateUncovered = new Group(uncoveredRedis, 2000, "0s", EVEN_SECONDS, ODD_SECONDS, NEVER);

	@BeforeAll
	static void runTheThreeGroups() throws Exception {
		List<Group> groups = List.of(everySecond, lateCovered, lateUncovered);
		try {
			// One group after another: nine JVMs starting at once on a loaded 2-core
			// machine made an instance fail to start.
			for (Group group : groups) {
				group.start();
				group.awaitUp();
			}
			// At least twelve seconds of runs, with all nine instances up.
			long from = System.currentTimeMillis();
			Thread.sleep(12_500);
			long to = System.currentTimeMillis();
			for (Group group : groups) {
				group.count(from, to);
			}
		}
		finally {
			for (Group group : groups) {
				group.stop();
			}
		}
	}

	@Test
	void shouldRunEveryPeriodOnceAcrossThreeInstances() {
		Map<Long, List<String>> runs = everySecond.runs;
		assertThat(runs).as("periods observed with all three instances up").hasSizeGreaterThanOrEqualTo(10);
		runs.forEach((period, instances) -> assertThat(instances)
			.as("runs of the period starting at %d s (all periods: %s)", period, runs)
			.hasSize(1));
	}

	@Test
	void shouldRunEveryPeriodOnceWhenTheMinimumHoldCoversAnInstanceFiringASecondLate() {
		Map<Long, List<String>> runs = lateCovered.runs;
		assertThat(runs).hasSizeGreaterThanOrEqualTo(5);
		runs.forEach((period, instances) -> assertThat(instances)
			.as("runs of the period starting at %d s (all periods: %s)", period, runs)
			.hasSize(1));
	}

	@Test
	void shouldRunEveryPeriodTwiceWhenAnInstanceFiresASecondLateWithoutAMinimumHold() {
		Map<Long, List<String>> runs = lateUncovered.runs;
		assertThat(runs).hasSizeGreaterThanOrEqualTo(5);
		runs.forEach((period, instances) -> assertThat(instances)
			.as("runs of the period starting at %d s (all periods: %s)", period, runs)
			.hasSize(2)
			.contains("b"));
	}

	/**
	 * Three instances (a, b and c) on the given crons and one redis-server, and the runs
	 * of each whole period of the window, keyed by the period's start in seconds.
	 */
	private static final class Group {

		private final RedisServerExtension redis;

		private final long periodMillis;

		private final String holdAtLeast;

		private final String[] crons;

		private final List<Process> processes = new ArrayList<>();

		private final List<Path> logs = new ArrayList<>();

		private final List<Integer> ports = new ArrayList<>();

		private final Map<Long, List<String>> runs = new TreeMap<>();

		Group(RedisServerExtension redis, long periodMillis, String holdAtLeast, String... crons) {
			this.redis = redis;
			this.periodMillis = periodMillis;
			this.holdAtLeast = holdAtLeast;
			this.crons = crons;
		}

		void start() throws IOException {
			List<String> instances = List.of("a", "b", "c");
			for (int i = 0; i < instances.size(); i++) {
				int port = freePort();
				Path log = Files.createTempFile("scheduled-" + instances.get(i), ".log");
				ProcessBuilder builder = new ProcessBuilder(javaBin(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
						Path.of("target/sample-app.jar").toAbsolutePath().toString(), "--server.port=" + port,
						"--spring.data.redis.host=" + this.redis.server().host(),
						"--spring.data.redis.port=" + this.redis.server().port(),
						"--sample.instance=" + instances.get(i), "--sample.report-cron=" + this.crons[i],
						"--sample.report-hold-at-least=" + this.holdAtLeast)
					.redirectErrorStream(true)
					.redirectOutput(log.toFile());
				this.processes.add(builder.start());
				this.logs.add(log);
				this.ports.add(port);
			}
		}

		void awaitUp() {
			for (int i = 0; i < this.ports.size(); i++) {
				ScheduledReportIT.awaitUp(this.ports.get(i), this.processes.get(i), this.logs.get(i));
			}
		}

		/**
		 * Count the runs of each whole period between the two times.
		 */
		void count(long fromMillis, long toMillis) throws IOException {
			long from = Math.floorDiv(fromMillis, this.periodMillis) + 1;
			long to = Math.floorDiv(toMillis, this.periodMillis) - 1;
			for (long period = from; period <= to; period++) {
				this.runs.put(period * this.periodMillis / 1000, new ArrayList<>());
			}
			for (Path log : this.logs) {
				Matcher run = RUN.matcher(Files.readString(log));
				while (run.find()) {
					long period = Long.parseLong(run.group(2)) / this.periodMillis * this.periodMillis / 1000;
					List<String> instancesOfPeriod = this.runs.get(period);
					if (instancesOfPeriod != null) {
						instancesOfPeriod.add(run.group(1));
					}
				}
			}
		}

		void stop() throws InterruptedException {
			for (Process process : this.processes) {
				process.destroy();
			}
			for (Process process : this.processes) {
				if (!process.waitFor(30, TimeUnit.SECONDS)) {
					process.destroyForcibly();
				}
			}
		}

	}

	private static String javaBin() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	private static void awaitUp(int port, Process process, Path log) {
		HttpClient client = HttpClient.newHttpClient();
		HttpRequest health = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health"))
			.timeout(Duration.ofSeconds(2))
			.build();
		await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
			if (!process.isAlive()) {
				fail("An instance exited with " + process.exitValue() + ":\n" + Files.readString(log));
			}
			try {
				return client.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
			}
			catch (IOException ex) {
				return false;
			}
		});
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
