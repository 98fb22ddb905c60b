package io.github.distributedlock.chaos.security;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.ChaosNotes;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The library over TLS, with a self-signed certificate made for the test by openssl,
 * against Debian's redis-server built with TLS ({@code --tls-port}).
 */
class TlsTests {

	@TempDir
	static Path certificates;

	private static RedisProcess redis;

	private static int tlsPort;

	@BeforeAll
	static void startWithTls() throws Exception {
		File key = certificates.resolve("redis.key").toFile();
		File certificate = certificates.resolve("redis.crt").toFile();
		Process openssl;
		try {
			openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
					"-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout",
					key.getPath(), "-out", certificate.getPath())
				.redirectErrorStream(true)
				.start();
		}
		catch (IOException ex) {
			assumeThat(ex).as("openssl is not installed").isNull();
			return;
		}
		openssl.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
		assertThat(openssl.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(openssl.exitValue()).as("openssl made a certificate").isZero();
		tlsPort = freePort();
		redis = RedisServers.launch("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", certificate.getPath(),
				"--tls-key-file", key.getPath(), "--tls-ca-cert-file", certificate.getPath(), "--tls-auth-clients",
				"no");
	}

	@AfterAll
	static void stop() {
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void shouldLockAndWakeWaitersOverTls() throws Exception {
		LettuceConnectionFactory factory = tls(true);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
				RedisLockTemplate otherProcess = RedisLockTemplate.builder(factory).build()) {
			LockHandle held = template
				.acquire(LockRequest.builder("tls").key("1").lease(Duration.ofSeconds(30)).build());
			java.util.concurrent.CompletableFuture<Long> waiter = java.util.concurrent.CompletableFuture
				.supplyAsync(() -> {
					try (LockHandle next = otherProcess
						.acquire(LockRequest.builder("tls").key("1").waitTime(Duration.ofSeconds(10)).build())) {
						return next.fencingToken();
					}
				});
			org.awaitility.Awaitility.await().until(() -> otherProcess.waitingThreads() == 1);
			Thread.sleep(100);
			held.close();
			assertThat(waiter.get(5, TimeUnit.SECONDS)).as("woken over TLS pub/sub, long before the lease")
				.isGreaterThan(held.fencingToken());
			List<String> clients = List.of(String.valueOf(redis.command("CLIENT", "LIST")).split("\n"));
			assertThat(clients).as("connections that came in on the TLS port")
				.anyMatch((client) -> client.contains("laddr=127.0.0.1:" + tlsPort));
			ChaosNotes.note("TLS",
					"- " + String.valueOf(redis.command("INFO", "server"))
						.lines()
						.filter((line) -> line.startsWith("redis_version:"))
						.findFirst()
						.orElse("redis") + ": locks, waits and pub/sub wake-ups work over TLS (--tls-port, self-signed "
							+ "certificate from openssl, Lettuce verifying it against that certificate).");
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void shouldFailClearlyWhenTheClientDoesNotSpeakTls() {
		LettuceConnectionFactory factory = tls(false);
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.pubSub(false)
			.defaults(io.github.distributedlock.LockDefaults.STANDARD
				.withWaitStrategy(io.github.distributedlock.WaitStrategy.POLLING))
			.build()) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquire(LockRequest.of("plain", "1")))
				.withMessageContaining("plain:1");
			assertThat(Duration.ofNanos(System.nanoTime() - start))
				.isLessThan(Connections.COMMAND_TIMEOUT.plusSeconds(2));
		}
		finally {
			factory.destroy();
		}
	}

	private static LettuceConnectionFactory tls(boolean useSsl) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(Connections.COMMAND_TIMEOUT);
		if (useSsl) {
			client.useSsl();
			client.clientOptions(ClientOptions.builder()
				.sslOptions(SslOptions.builder().trustManager(certificates.resolve("redis.crt").toFile()).build())
				.build());
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", tlsPort), client.build());
		factory.setEagerInitialization(false);
		return Connections.start(factory);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
