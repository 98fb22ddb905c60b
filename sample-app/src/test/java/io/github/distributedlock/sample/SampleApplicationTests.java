package io.github.distributedlock.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.sample.ConfigController.ConfigWrite;
import io.github.distributedlock.sample.DeploymentService.Deployment;
import io.github.distributedlock.sample.PriceService.Quote;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The sample application against a real redis-server, through its HTTP endpoints.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.report-cron=* * * * * *", "sample.report-hold-at-least=100ms",
				"sample.deploy-millis=100" })
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationTests {

	static final RedisProcess redis = RedisServers.launch();

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.port", redis::port);
		registry.add("spring.data.redis.host", redis::host);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@LocalServerPort
	int port;

	@Autowired
	FencedConfigStore store;

	@Autowired
	ReportJob reportJob;

	private RestClient client() {
		return RestClient.create("http://localhost:" + this.port);
	}

	@Test
	void shouldLogTheRedisItUsesAtStartup(CapturedOutput output) {
		String info = String.valueOf(redis.command("INFO", "server"));
		String version = info.substring(info.indexOf("redis_version:") + "redis_version:".length())
			.lines()
			.findFirst()
			.orElseThrow()
			.strip();
		assertThat(output).contains(
				"Locks use the Redis at " + redis.host() + ":" + redis.port() + ": Redis " + version + " (standalone)");
	}

	@Test
	void shouldDeployToOneServerAtATime() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(6);
		try {
			List<Future<Deployment>> calls = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				calls.add(executor
					.submit(() -> client().post().uri("/servers/web-1/deploy").retrieve().body(Deployment.class)));
			}
			List<Deployment> deployments = new ArrayList<>();
			for (Future<Deployment> call : calls) {
				deployments.add(call.get(30, TimeUnit.SECONDS));
			}
			assertThat(deployments).allSatisfy((deployment) -> assertThat(deployment.fencingToken()).isPositive());
			assertThat(DeploymentLog.check(deployments).problems()).isEmpty();
			String report = client().get().uri("/deployments/report").retrieve().body(String.class);
			assertThat(report).contains("OK:").contains("web-1");
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void shouldWriteConfigurationWithAFencingTokenAndRejectStaleOnes() {
		ConfigWrite write = client().put().uri("/config/feature-x").body("on").retrieve().body(ConfigWrite.class);
		assertThat(write).isNotNull();
		assertThat(write.fencingToken()).isPositive();
		assertThat(client().get().uri("/config/feature-x").retrieve().body(String.class)).isEqualTo("on");
		// A holder whose lease ran out comes back with its older token: refused.
		assertThat(this.store.write("feature-x", "stale", write.fencingToken() - 1)).isFalse();
		assertThat(this.store.read("feature-x")).isEqualTo("on");
		ConfigWrite next = client().put().uri("/config/feature-x").body("off").retrieve().body(ConfigWrite.class);
		assertThat(next.fencingToken()).isGreaterThan(write.fencingToken());
	}

	@Test
	void shouldTakeTheValueFromAFormEncodedBodyAsCurlDashDSendsIt() {
		// curl -X PUT localhost:8080/config/feature-x -d on: the README's command.
		ConfigWrite write = client().put()
			.uri("/config/feature-y")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body("on")
			.retrieve()
			.body(ConfigWrite.class);
		assertThat(write).isNotNull();
		assertThat(write.value()).isEqualTo("on");
		assertThat(this.store.read("feature-y")).isEqualTo("on");
	}

	@Test
	void shouldComputeAnExpensivePriceOnceUnderAStampede() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<Quote>> calls = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				calls.add(executor.submit(() -> client().get().uri("/prices/ACME").retrieve().body(Quote.class)));
			}
			List<Quote> quotes = new ArrayList<>();
			for (Future<Quote> call : calls) {
				quotes.add(call.get(30, TimeUnit.SECONDS));
			}
			assertThat(quotes).filteredOn((quote) -> quote.source().startsWith("computed")).hasSize(1);
			assertThat(quotes).extracting(Quote::price).containsOnly(quotes.get(0).price());
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void shouldRunTheScheduledReport() {
		int before = this.reportJob.runs();
		await().atMost(java.time.Duration.ofSeconds(5)).until(() -> this.reportJob.runs() > before + 1);
	}

	@Test
	void shouldExposeTheLocksEndpointAndMetrics() {
		String locks = client().get().uri("/actuator/distributedlocks").retrieve().body(String.class);
		assertThat(locks).isNotNull().startsWith("{");
		String metrics = client().get().uri("/actuator/metrics").retrieve().body(String.class);
		assertThat(metrics).contains("distributed.lock");
	}

	@Test
	void shouldReturnNotFoundForUnknownPaths() {
		assertThatExceptionOfType(HttpClientErrorException.class)
			.isThrownBy(() -> client().get().uri("/nope").retrieve().body(String.class))
			.satisfies((ex) -> assertThat(ex.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND));
	}

}
