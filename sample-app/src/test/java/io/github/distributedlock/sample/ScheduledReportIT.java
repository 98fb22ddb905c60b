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
 * Three instances of the packaged sample run {@link ReportJob} every second, aligned to
 * the clock: each period must run exactly once across all of them, although the job takes
 * well under a millisecond. With the minimum hold set to zero, the same setup runs some
 * periods more than once, which is what the minimum hold is for.
 */
class ScheduledReportIT {

	private static final long PERIOD_MILLIS = 1000;

	private static final Pattern RUN = Pattern.compile("Report run \\d+ on (\\S+) at (\\d+)");

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldRunEveryPeriodOnceAcrossThreeInstances() throws Exception {
		Map<Long, List<String>> runs = runThreeInstances("500ms");
		assertThat(runs).as("periods observed with all three instances up").hasSizeGreaterThanOrEqualTo(10);
		runs.forEach((period, instances) -> assertThat(instances)
			.as("runs of the period starting at %d ms (all periods: %s)", period * PERIOD_MILLIS, runs)
			.hasSize(1));
	}

	@Test
	void shouldRunSomePeriodsMoreThanOnceWithoutAMinimumHold() throws Exception {
		Map<Long, List<String>> runs = runThreeInstances("0s");
		assertThat(runs).hasSizeGreaterThanOrEqualTo(10);
		assertThat(runs.values()).as("periods run by more than one instance: %s", runs)
			.anyMatch((instances) -> instances.size() > 1);
	}

	/**
	 * Start three instances, let them run the job for at least twelve periods after all
	 * of them are up, stop them, and return the runs of each whole period in between.
	 */
	private static Map<Long, List<String>> runThreeInstances(String holdAtLeast) throws Exception {
		List<Process> processes = new ArrayList<>();
		List<Path> logs = new ArrayList<>();
		try {
			List<Integer> ports = new ArrayList<>();
			for (String instance : List.of("a", "b", "c")) {
				int port = freePort();
				Path log = Files.createTempFile("scheduled-" + instance, ".log");
				ProcessBuilder builder = new ProcessBuilder(javaBin(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
						Path.of("target/sample-app.jar").toAbsolutePath().toString(), "--server.port=" + port,
						"--spring.data.redis.host=" + redis.server().host(),
						"--spring.data.redis.port=" + redis.server().port(), "--sample.instance=" + instance,
						"--sample.report-cron=* * * * * *", "--sample.report-hold-at-least=" + holdAtLeast)
					.redirectErrorStream(true)
					.redirectOutput(log.toFile());
				processes.add(builder.start());
				logs.add(log);
				ports.add(port);
			}
			for (int i = 0; i < ports.size(); i++) {
				awaitUp(ports.get(i), processes.get(i), logs.get(i));
			}
			long from = Math.floorDiv(System.currentTimeMillis(), PERIOD_MILLIS) + 1;
			Thread.sleep(12 * PERIOD_MILLIS + 500);
			long to = Math.floorDiv(System.currentTimeMillis(), PERIOD_MILLIS) - 1;
			Map<Long, List<String>> runs = new TreeMap<>();
			for (long period = from; period <= to; period++) {
				runs.put(period, new ArrayList<>());
			}
			for (Path log : logs) {
				Matcher run = RUN.matcher(Files.readString(log));
				while (run.find()) {
					List<String> instances = runs.get(Long.parseLong(run.group(2)) / PERIOD_MILLIS);
					if (instances != null) {
						instances.add(run.group(1));
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
