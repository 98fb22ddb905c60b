package io.github.distributedlock.sample;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

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
	void shouldStopTheRedisOnlyOnceTheContextHasClosed() throws Exception {
		int port = freePort();
		InetSocketAddress address = InetSocketAddress.createUnresolved("localhost", port);
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.addListeners(new EmbeddedRedis());
		// A bean destroyed as the context closes, as the lock template and Lettuce are:
		// the Redis must still answer then, or they log that it went away.
		AtomicReference<Boolean> answeredAtDestroy = new AtomicReference<>();
		application
			.addInitializers((context) -> ((GenericApplicationContext) context).registerBean("destroyedWithTheContext",
					DisposableBean.class, () -> () -> answeredAtDestroy.set(EmbeddedRedis.answersPing(address))));
		try (ConfigurableApplicationContext context = application.run("--spring.data.redis.port=" + port,
				"--sample.report-cron=-")) {
			assertThat(EmbeddedRedis.answersPing(address)).isTrue();
		}
		assertThat(answeredAtDestroy.get()).as("Redis answered while the context's beans were destroyed").isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> !EmbeddedRedis.answersPing(address));
	}

	@Test
	void shouldKeepTheRedisOutOfTheApplicationsProcessGroup() throws Exception {
		// A terminal's Ctrl-C signals the whole foreground process group: a redis-server
		// in
		// it would stop at once, before the context closes.
		int port = freePort();
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.addListeners(new EmbeddedRedis());
		try (ConfigurableApplicationContext context = application.run("--spring.data.redis.port=" + port,
				"--sample.report-cron=-")) {
			Properties info;
			try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
				info = connection.serverCommands().info("server");
			}
			assertThat(info).isNotNull();
			long redisPid = Long.parseLong(info.getProperty("process_id"));
			assertThat(processGroup(redisPid)).as("the process group of redis-server")
				.isNotEqualTo(processGroup(ProcessHandle.current().pid()));
		}
	}

	@Test
	void shouldKeepTheRedisThroughACtrlCUntilTheContextHasClosed() throws Exception {
		int port = freePort();
		InetSocketAddress address = InetSocketAddress.createUnresolved("localhost", port);
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		EmbeddedRedis embedded = new EmbeddedRedis();
		application.addListeners(embedded);
		try (ConfigurableApplicationContext context = application.run("--spring.data.redis.port=" + port,
				"--sample.report-cron=-")) {
			// Ctrl-C as a terminal sends it to the process group: here to every process
			// of
			// this JVM's group that the sample started (not to this JVM, whose shutdown
			// hook would close the context).
			Process shell = embedded.process();
			assertThat(shell).isNotNull();
			long group = processGroup(ProcessHandle.current().pid());
			List<ProcessHandle> started = Stream.concat(Stream.of(shell.toHandle()), shell.descendants())
				.filter((process) -> processGroupOrZero(process.pid()) == group)
				.toList();
			assertThat(started).as("the shell and what runs in the JVM's process group").isNotEmpty();
			for (ProcessHandle process : started) {
				interrupt(process.pid());
			}
			Thread.sleep(500);
			assertThat(EmbeddedRedis.answersPing(address)).as("Redis, after Ctrl-C, before the context closed")
				.isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> !EmbeddedRedis.answersPing(address));
	}

	private static void interrupt(long pid) throws Exception {
		Process kill = new ProcessBuilder("kill", "-s", "INT", Long.toString(pid)).redirectErrorStream(true).start();
		assertThat(kill.waitFor()).as("kill -s INT %d", pid).isZero();
	}

	private static long processGroupOrZero(long pid) {
		try {
			return processGroup(pid);
		}
		catch (Exception ex) {
			// Gone meanwhile.
			return 0;
		}
	}

	/** Read a process's group from {@code /proc/<pid>/stat} (Linux). */
	private static long processGroup(long pid) throws Exception {
		String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
		// After the command in parentheses: state, parent pid, process group.
		String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		return Long.parseLong(fields[2]);
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
