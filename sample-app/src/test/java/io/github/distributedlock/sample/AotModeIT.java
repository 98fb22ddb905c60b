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
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the packaged jar with its ahead-of-time processed context
 * ({@code -Dspring.aot.enabled=true}, on the JVM) and takes a lock through it. AOT mode
 * fixes the bean definitions at build time and refuses to start without them, so a start
 * proves the generated context is used.
 */
class AotModeIT {

	private static final Duration STARTUP = Duration.ofSeconds(60);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldServeLocksFromTheAheadOfTimeProcessedContext() throws Exception {
		int port = freePort();
		Path log = Files.createTempFile("sample-aot", ".log");
		Process app = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
				Path.of("target", "sample-app.jar").toAbsolutePath().toString(), "--server.port=" + port,
				"--spring.data.redis.port=" + redis.server().port(), "--sample.embedded-redis.enabled=false"))
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			HttpClient http = HttpClient.newHttpClient();
			HttpResponse<String> deployed = awaitUp(http, app, log,
					URI.create("http://127.0.0.1:" + port + "/servers/web-1/deploy"));
			assertThat(deployed.statusCode()).as(deployed.body()).isEqualTo(200);
			assertThat(deployed.body()).contains("\"serverId\":\"web-1\"").containsPattern("\"fencingToken\":[1-9]");
			assertThat(Files.readString(log)).as("the log says the AOT-processed context started")
				.contains("Starting AOT-processed SampleApplication");
			// The fencing counter of the lock's hash slot (one per slot, shared by its
			// locks).
			assertThat((java.util.List<?>) redis.server().command("KEYS", "sample-lock:{*}:fence")).isNotEmpty();
		}
		finally {
			app.destroy();
			if (!app.waitFor(20, TimeUnit.SECONDS)) {
				app.destroyForcibly();
			}
		}
	}

	private static HttpResponse<String> awaitUp(HttpClient http, Process app, Path log, URI deploy)
			throws IOException, InterruptedException {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (true) {
			assertThat(app.isAlive()).as(() -> "the app exited:\n" + read(log)).isTrue();
			try {
				return http.send(HttpRequest.newBuilder(deploy).POST(HttpRequest.BodyPublishers.noBody()).build(),
						HttpResponse.BodyHandlers.ofString());
			}
			catch (IOException notYet) {
				assertThat(System.nanoTime() - deadline).as(() -> "not up within " + STARTUP + ":\n" + read(log))
					.isNegative();
				Thread.sleep(200);
			}
		}
	}

	private static String read(Path log) {
		try {
			return Files.readString(log);
		}
		catch (IOException ex) {
			return "(log unreadable: " + ex.getMessage() + ")";
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
