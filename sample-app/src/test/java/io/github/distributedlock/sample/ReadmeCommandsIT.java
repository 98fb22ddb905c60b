package io.github.distributedlock.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
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
 * Runs the commands of the README's "Two commands" section as written: the README's
 * {@code mvn ... package} command builds the jar from the repository root, the README's
 * command for another Redis (its {@code java -jar} command behind the
 * {@code SPRING_DATA_REDIS_*} variables) starts it against a redis-server of the test's
 * own, and every {@code curl} line of "Then try the sample" runs with real curl against
 * it. Only addresses differ: the example Redis host and port are rewritten to the test's
 * server, the app gets a free port through {@code SERVER_PORT} (other builds may hold
 * 8080), and the commands' {@code localhost:8080} is rewritten to it.
 */
class ReadmeCommandsIT {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern BLOCK = Pattern.compile("```\\n(.*?)```", Pattern.DOTALL);

	private static final DateTimeFormatter LAST_UPDATED = DateTimeFormatter.ofPattern("yyyyMMddHHmmss")
		.withZone(ZoneOffset.UTC);

	private static final String EXAMPLE_HOST = "redis.example.com";

	private static final String EXAMPLE_PORT = "6380";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldRunTheSampleAndEveryCommandToTryItAsTheReadmeWritesThem() throws Exception {
		String readme = Files.readString(ROOT.resolve("README.md"));
		String run = blockAfter(readme, "Run the sample app");
		assertThat(run).as("the README's run command").contains(" && ");
		String build = run.substring(0, run.indexOf(" && ")).strip();
		String start = run.substring(run.indexOf(" && ") + 4).strip();
		// Both halves run as written. The build half packages again what this build has
		// packaged already, so it finds everything compiled and only rewrites the jars.
		runBuild(build);
		assertThat(ROOT.resolve(start.substring(start.lastIndexOf(' ') + 1))).exists();
		String otherRedis = blockAfter(readme, "To use another Redis").strip();
		assertThat(otherRedis).as("the README's command for another Redis")
			.endsWith(" " + start)
			.contains("SPRING_DATA_REDIS_HOST=" + EXAMPLE_HOST + " ")
			.contains("SPRING_DATA_REDIS_PORT=" + EXAMPLE_PORT + " ");
		String startOnTestRedis = otherRedis.replace(EXAMPLE_HOST, redis.server().host())
			.replace("=" + EXAMPLE_PORT + " ", "=" + redis.server().port() + " ");
		int port = freePort();
		ProcessBuilder app = new ProcessBuilder("bash", "-c", startOnTestRedis).directory(ROOT.toFile())
			.redirectErrorStream(true)
			.redirectOutput(Files.createTempFile("readme-app", ".log").toFile());
		app.environment().put("SERVER_PORT", Integer.toString(port));
		app.environment().put("JAVA_TOOL_OPTIONS", "-Xmx256m -XX:TieredStopAtLevel=1");
		Process process = app.start();
		try {
			awaitUp(port, process, app.redirectOutput().file().toPath());
			List<String> commands = commands(blockAfter(readme, "Then try the sample"));
			assertThat(commands).hasSize(5);
			for (String command : commands) {
				if (command.startsWith("curl ")) {
					String body = curl(command.replace("localhost:8080", "localhost:" + port));
					check(command, body);
				}
				else if (command.equals("sample-app/demo.sh")) {
					// DemoScriptIT runs it, with and without --unsafe.
					assertThat(ROOT.resolve(command)).isExecutable();
				}
				else {
					fail("No test runs this README command: " + command);
				}
			}
		}
		finally {
			process.descendants().forEach(ProcessHandle::destroy);
			process.destroy();
			process.waitFor(30, TimeUnit.SECONDS);
		}
	}

	@Test
	void shouldRunTheSimulationCommandsOfTheTestingPage() throws IOException, InterruptedException {
		String testing = Files.readString(ROOT.resolve("docs/testing.md"));
		List<String> commands = commands(blockAfter(testing, "seed replayed event for event"));
		assertThat(commands).containsExactly("lock-simulation/simulate.sh --seeds 300",
				"lock-simulation/simulate.sh --seed 1003");
		assertThat(run(commands.get(0))).contains("simulation: 300 seeds,");
		assertThat(run(commands.get(1))).contains("simulation: 1 seeds,");
	}

	private static String run(String command) throws IOException, InterruptedException {
		Path log = Files.createTempFile("readme-simulation", ".log");
		Process process = new ProcessBuilder("bash", "-c", command).directory(ROOT.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		boolean exited = process.waitFor(5, TimeUnit.MINUTES);
		if (!exited) {
			process.descendants().forEach(ProcessHandle::destroy);
			process.destroy();
		}
		String output = Files.readString(log);
		assertThat(exited).as("'" + command + "' ended within 5 minutes").isTrue();
		assertThat(process.exitValue()).as("'" + command + "' exit code; its output:\n" + output).isZero();
		return output;
	}

	@Test
	void shouldInstallWithTheQuickStartCommandEveryArtifactTheQuickStartNames() throws Exception {
		String readme = Files.readString(ROOT.resolve("README.md"));
		String install = blockAfter(readme, "Install the published artifacts").strip();
		assertThat(install).as("the README's install command").startsWith("mvn ").contains(" install ");
		Matcher named = Pattern
			.compile("<groupId>io\\.github\\.distributedlock</groupId>\\s*<artifactId>([\\w-]+)</artifactId>")
			.matcher(quickStart(readme));
		List<String> artifacts = new ArrayList<>();
		while (named.find()) {
			artifacts.add(named.group(1));
		}
		assertThat(artifacts).as("artifacts the quick start's XML names")
			.contains("distributed-lock-bom", "distributed-lock-spring-boot-starter", "distributed-lock-test");
		// Maven keeps a copied file's time, but stamps each install in the artifact's
		// local metadata (lastUpdated, UTC, to the second).
		String before = LAST_UPDATED.format(Instant.now().minusSeconds(1));
		runBuild(install);
		Path repository = Path.of(System.getProperty("user.home"), ".m2", "repository", "io", "github",
				"distributedlock");
		for (String artifact : artifacts) {
			Path version = repository.resolve(artifact + "/0.1.0-SNAPSHOT");
			assertThat(version.resolve(artifact + "-0.1.0-SNAPSHOT.pom")).as("installed by '" + install + "'").exists();
			Matcher stamp = Pattern.compile("<lastUpdated>(\\d{14})</lastUpdated>")
				.matcher(Files.readString(version.resolve("maven-metadata-local.xml")));
			assertThat(stamp.find()).as(artifact + "'s local metadata has a lastUpdated").isTrue();
			assertThat(stamp.group(1)).as(artifact + " installed by this run").isGreaterThanOrEqualTo(before);
		}
	}

	@Test
	void shouldShowTheBootParentThisProjectBuildsWith() throws IOException {
		Matcher version = Pattern.compile("<spring-boot\\.version>([^<]+)</spring-boot\\.version>")
			.matcher(Files.readString(ROOT.resolve("pom.xml")));
		assertThat(version.find()).as("the build's spring-boot.version").isTrue();
		assertThat(quickStart(Files.readString(ROOT.resolve("README.md")))).as("the quick start's parent")
			.containsPattern("<parent>\\s*<groupId>org\\.springframework\\.boot</groupId>"
					+ "\\s*<artifactId>spring-boot-starter-parent</artifactId>\\s*<version>"
					+ Pattern.quote(version.group(1)) + "</version>\\s*</parent>");
	}

	@Test
	void shouldRunTheReadmeTestCommandInCi() throws IOException {
		String readme = Files.readString(ROOT.resolve("README.md"));
		String test = blockAfter(readme, "Run the tests").strip();
		assertThat(test).isEqualTo("mvn -B verify");
		assertThat(Files.readAllLines(ROOT.resolve(".ci/run"))).contains(test);
	}

	private static void runBuild(String build) throws IOException, InterruptedException {
		Path log = Files.createTempFile("readme-build", ".log");
		Process process = new ProcessBuilder("bash", "-c", build).directory(ROOT.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		boolean exited = process.waitFor(10, TimeUnit.MINUTES);
		if (!exited) {
			process.descendants().forEach(ProcessHandle::destroy);
			process.destroy();
		}
		assertThat(exited).as("'" + build + "' ended within 10 minutes").isTrue();
		String output = Files.readString(log);
		assertThat(process.exitValue()).as("'" + build + "' exit code; its output:\n" + output).isZero();
		if (build.contains(" -q ")) {
			// The ahead-of-time step starts the application in a JVM of its own: quiet
			// means its banner and INFO lines too.
			assertThat(output).as("output of the quiet '" + build + "'")
				.doesNotContain(":: Spring Boot ::")
				.doesNotContain(" INFO ");
		}
	}

	private static void check(String command, String body) {
		if (command.contains("/servers/web-1/deploy")) {
			assertThat(body).as(command).contains("\"serverId\":\"web-1\"").contains("\"fencingToken\":");
		}
		else if (command.contains("/config/feature-x")) {
			assertThat(body).as(command).contains("\"key\":\"feature-x\"").contains("\"value\":\"on\"");
		}
		else if (command.contains("/prices/ACME")) {
			assertThat(body).as(command).contains("\"price\":");
		}
		else if (command.contains("/actuator/distributedlocks")) {
			assertThat(body).as(command).startsWith("{").contains("locks");
		}
		else {
			fail("No check for README command: " + command);
		}
	}

	/**
	 * Run a curl command with bash, adding only options about output: the status code on
	 * a last line of its own, errors shown, no progress meter.
	 */
	private static String curl(String command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder("bash", "-c", command + " -sS -w '\\n%{http_code}'")
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(command + "\n" + output).isZero();
		int newline = output.lastIndexOf('\n');
		assertThat(output.substring(newline + 1)).as(command + "\n" + output).startsWith("2");
		return output.substring(0, newline);
	}

	private static List<String> commands(String block) {
		List<String> commands = new ArrayList<>();
		for (String line : block.split("\n")) {
			int comment = line.indexOf(" #");
			String command = ((comment >= 0) ? line.substring(0, comment) : line).strip();
			if (!command.isEmpty()) {
				commands.add(command);
			}
		}
		return commands;
	}

	private static String quickStart(String readme) {
		int start = readme.indexOf("## Quick start");
		assertThat(start).as("README has '## Quick start'").isNotNegative();
		int end = readme.indexOf("\n## ", start + 1);
		return readme.substring(start, (end < 0) ? readme.length() : end);
	}

	private static String blockAfter(String readme, String heading) {
		int at = readme.indexOf(heading);
		assertThat(at).as("README has '" + heading + "'").isNotNegative();
		Matcher block = BLOCK.matcher(readme);
		assertThat(block.find(at)).as("a code block after '" + heading + "'").isTrue();
		return block.group(1);
	}

	private static void awaitUp(int port, Process process, Path log) {
		HttpClient client = HttpClient.newHttpClient();
		HttpRequest health = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health"))
			.timeout(Duration.ofSeconds(2))
			.build();
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).until(() -> {
			if (!process.isAlive()) {
				fail("The app exited with " + process.exitValue() + ":\n" + Files.readString(log));
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
