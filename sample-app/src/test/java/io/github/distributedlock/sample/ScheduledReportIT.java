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
 */
class ScheduledReportIT {

	private static final String EVERY_SECOND = "* * * * * *";

	private static final String EVEN_SECONDS = "0/2 * * * * *";

	private static final String ODD_SECONDS = "1/2 * * * * *";

	/** Spring's "disabled" cron: the instance is up but never runs the job. */
	private static final String NEVER = "-";

	private static final Pattern RUN = Pattern.compile("Report run \\d+ on (\\S+) at (\\d+)");

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldRunEveryPeriodOnceAcrossThreeInstances() throws Exception {
		Map<Long, List<String>> runs = runThreeInstances(1000, "500ms", EVERY_SECOND, EVERY_SECOND, EVERY_SECOND);
		assertThat(runs).as("periods observed with all three instances up").hasSizeGreaterThanOrEqualTo(10);
		runs.forEach((period, instances) -> assertThat(instances)
			.as("runs of the period starting at %d s (all periods: %s)", period, runs)
			.hasSize(1));
	}

	@Test
	void shouldRunEveryPeriodOnceWhenTheMinimumHoldCoversAnInstanceFiringASecondLate() throws Exception {
		Map<Long, List<String>> runs = runThreeInstances(2000, "1500ms", EVEN_SECONDS, ODD_SECONDS, NEVER);
		assertThat(runs).hasSizeGreaterThanOrEqualTo(5);
		runs.forEach((period, instances) -> assertThat(instances)
			.as("runs of the period starting at %d s (all periods: %s)", period, runs)
			.hasSize(1));
	}

	@Test
	void shouldRunEveryPeriodTwiceWhenAnInstanceFiresASecondLateWithoutAMinimumHold() throws Exception {
		Map<Long, List<String>> runs = runThreeInstances(2000, "0s", EVEN_SECONDS, ODD_SECONDS, NEVER);
		assertThat(runs).hasSizeGreaterThanOrEqualTo(5);
		runs.forEach((period, instances) -> assertThat(instances)
			.as("runs of the period starting at %d s (all periods: %s)", period, runs)
			.hasSize(2)
			.contains("b"));
	}

	/**
	 * Start three instances (a, b and c) on the given crons, let them run the job for at
	 * least twelve seconds after all of them are up, stop them, and return the runs of
	 * each whole period in between, keyed by the period's start in seconds.
	 */
	private static Map<Long, List<String>> runThreeInstances(long periodMillis, String holdAtLeast, String... crons)
			throws Exception {
		List<Process> processes = new ArrayList<>();
		List<Path> logs = new ArrayList<>();
		try {
			List<Integer> ports = new ArrayList<>();
			List<String> instances = List.of("a", "b", "c");
			for (int i = 0; i < instances.size(); i++) {
				int port = freePort();
				Path log = Files.createTempFile("scheduled-" + instances.get(i), ".log");
				ProcessBuilder builder = new ProcessBuilder(javaBin(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
						Path.of("target/sample-app.jar").toAbsolutePath().toString(), "--server.port=" + port,
						"--spring.data.redis.host=" + redis.server().host(),
						"--spring.data.redis.port=" + redis.server().port(), "--sample.instance=" + instances.get(i),
						"--sample.report-cron=" + crons[i], "--sample.report-hold-at-least=" + holdAtLeast)
					.redirectErrorStream(true)
					.redirectOutput(log.toFile());
				processes.add(builder.start());
				logs.add(log);
				ports.add(port);
			}
			for (int i = 0; i < ports.size(); i++) {
				awaitUp(ports.get(i), processes.get(i), logs.get(i));
			}
			long from = Math.floorDiv(System.currentTimeMillis(), periodMillis) + 1;
			Thread.sleep(12_500);
			long to = Math.floorDiv(System.currentTimeMillis(), periodMillis) - 1;
			Map<Long, List<String>> runs = new TreeMap<>();
			for (long period = from; period <= to; period++) {
				runs.put(period * periodMillis / 1000, new ArrayList<>());
			}
			for (Path log : logs) {
				Matcher run = RUN.matcher(Files.readString(log));
				while (run.find()) {
					long period = Long.parseLong(run.group(2)) / periodMillis * periodMillis / 1000;
					List<String> instancesOfPeriod = runs.get(period);
					if (instancesOfPeriod != null) {
						instancesOfPeriod.add(run.group(1));
					}
				}
			}
			return runs;
		}
		finally {
			for (Process process : processes) {
				process.destroy();
			}
			for (Process process : processes) {
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
