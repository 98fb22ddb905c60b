package io.github.distributedlock.sample;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's embedded default: with no Redis at the configured port, it starts one
 * there and stops it with the application.
 */
class EmbeddedRedisTests {

	@Test
	void shouldStartARedisWhenNoneAnswersAndStopItOnClose() throws Exception {
		int port = freePort();
		InetSocketAddress address = InetSocketAddress.createUnresolved("localhost", port);
		assertThat(EmbeddedRedis.answersPing(address)).isFalse();
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		EmbeddedRedis embedded = new EmbeddedRedis();
		application.addListeners(embedded);
		Path directory;
		try (ConfigurableApplicationContext context = application.run("--spring.data.redis.port=" + port,
				"--sample.report-cron=-")) {
			assertThat(EmbeddedRedis.answersPing(address)).isTrue();
			String price = context.getBean(PriceService.class).quote("EMB").price();
			assertThat(price).isNotBlank();
			directory = embedded.directory();
			assertThat(directory).as("the server's working directory").isNotNull().isDirectory();
		}
		// Stopped with the application, at the latest at JVM exit; here, when its pipe
		// closes.
		await().atMost(Duration.ofSeconds(10)).until(() -> !EmbeddedRedis.answersPing(address));
		assertThat(directory).as("the server's working directory, once it stopped").doesNotExist();
	}

	@Test
	void shouldFallBackToTheBundledBinaryWhenNoneIsOnThePath() throws Exception {
		Path binary = EmbeddedRedis.binary("");
		assertThat(binary.getFileName().toString()).startsWith("sample-redis-server");
		Process version = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
		String output = new String(version.getInputStream().readAllBytes());
		assertThat(version.waitFor()).isZero();
		assertThat(output).startsWith("Redis server v=");
	}

	private static int freePort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
