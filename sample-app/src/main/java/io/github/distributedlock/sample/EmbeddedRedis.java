package io.github.distributedlock.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.FileSystemUtils;
import org.springframework.util.StringUtils;

/**
 * Starts a local {@code redis-server} when no Redis answers at the configured address, so
 * the sample runs on a machine without one. A sample-app convenience only, never part of
 * the starter.
 * <p>
 * The binary comes from {@code PATH}, or else from the {@code embedded-redis} artifact,
 * which ships one. The server runs without persistence on the configured port and stops
 * once the application context has closed, after every bean that uses it, or, should the
 * JVM be killed, when its parent pipe closes; its temporary working directory is removed
 * then. It runs in a session of its own, so that a terminal's Ctrl-C, which signals the
 * whole foreground process group, reaches only the JVM, which then closes the context
 * first.
 */
final class EmbeddedRedis implements ApplicationListener<ApplicationEvent>, Ordered {

	private static final Log logger = LogFactory.getLog(EmbeddedRedis.class);

	private static final String BUNDLED_BINARY = "redis-server-6.2.6-v5-linux-amd64";

	private @Nullable Process process;

	private @Nullable Path directory;

	@Override
	public int getOrder() {
		// After Boot's logging listener, so these lines are logged normally.
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			startIfNeeded(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared && this.process != null) {
			stopAfterTheBeansOf(prepared.getApplicationContext());
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	/**
	 * Stop the server when the context destroys its beans, after all the others: the
	 * context destroys them in the reverse order they were registered in, and this one
	 * comes before any bean of the application's. Closing the context is also what a JVM
	 * shutdown (Ctrl-C, SIGTERM) does first, through Boot's shutdown hook.
	 */
	private void stopAfterTheBeansOf(ConfigurableApplicationContext context) {
		if (context.getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
			registry.registerDisposableBean(EmbeddedRedis.class.getName(), this::stop);
		}
		else {
			context.addApplicationListener((event) -> {
				if (event instanceof ContextClosedEvent) {
					stop();
				}
			});
		}
	}

	private void startIfNeeded(ConfigurableEnvironment environment) {
		if (!environment.getProperty("sample.embedded-redis.enabled", Boolean.class, true)) {
			return;
		}
		InetSocketAddress address = configuredAddress(environment);
		if (!isLocal(address.getHostString()) || answersPing(address)) {
			return;
		}
		try {
			Path binary = binary(System.getenv("PATH"));
			start(binary, address);
			logger.warn("No Redis answered at " + address.getHostString() + ":" + address.getPort()
					+ ", so the sample app started its own redis-server (" + binary + ") there, without persistence. "
					+ "It stops when the app stops. Configure spring.data.redis.* to use a real Redis.");
		}
		catch (IOException ex) {
			throw new IllegalStateException("No Redis answered at " + address + " and the sample app could not start "
					+ "one: " + ex.getMessage() + ". Install redis-server or configure spring.data.redis.*", ex);
		}
	}

	static InetSocketAddress configuredAddress(ConfigurableEnvironment environment) {
		String url = environment.getProperty("spring.data.redis.url");
		if (StringUtils.hasText(url)) {
			URI uri = URI.create(url);
			return InetSocketAddress.createUnresolved(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379);
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		return InetSocketAddress.createUnresolved(host, port);
	}

	private static boolean isLocal(String host) {
		return host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
	}

	static boolean answersPing(InetSocketAddress address) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address.getHostString(), address.getPort()), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			String reply = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
				.readLine();
			// "-NOAUTH" still means a Redis is there.
			return reply != null && (reply.startsWith("+PONG") || reply.startsWith("-"));
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * Find {@code redis-server} on the given search path, or else extract the bundled
	 * one.
	 */
	static Path binary(@Nullable String path) throws IOException {
		if (path != null && !path.isEmpty()) {
			for (String directory : path.split(":")) {
				Path candidate = Path.of(directory, "redis-server");
				if (Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		try (InputStream bundled = EmbeddedRedis.class.getClassLoader().getResourceAsStream(BUNDLED_BINARY)) {
			if (bundled == null) {
				throw new IOException("no redis-server on the PATH and no bundled binary for this platform");
			}
			Path target = Files.createTempFile("sample-redis-server", "");
			Files.copy(bundled, target, StandardCopyOption.REPLACE_EXISTING);
			target.toFile().setExecutable(true);
			target.toFile().deleteOnExit();
			return target;
		}
	}

	/**
	 * Return the shell that runs the server this listener started, or {@code null}.
	 */
	@Nullable Process process() {
		return this.process;
	}

	/**
	 * Return the working directory of the server this listener started, or {@code null}.
	 */
	@Nullable Path directory() {
		return this.directory;
	}

	private void start(Path binary, InetSocketAddress address) throws IOException {
		Path directory = Files.createTempDirectory("sample-redis");
		this.directory = directory;
		// The shell kills redis-server when our end of its stdin closes, on exit or if
		// killed, and then removes its working directory: each run makes a new one, which
		// would pile up in the temporary folder. A terminal's Ctrl-C signals the JVM's
		// process group, this shell and its cat included: they ignore it and wait for the
		// JVM to close the pipe once its context has closed. setsid puts the server in a
		// session of its own, out of the terminal's reach (it does not fork here: a
		// background job of a shell without job control leads no process group).
		String script = "trap '' INT; run=; command -v setsid >/dev/null 2>&1 && run=setsid; "
				+ "$run \"$0\" \"$@\" </dev/null >/dev/null 2>&1 & pid=$!; cat >/dev/null; kill $pid; wait $pid; "
				+ "rm -rf \"$SAMPLE_REDIS_DIR\"";
		List<String> command = List.of("/bin/sh", "-c", script, binary.toString(), "--port",
				Integer.toString(address.getPort()), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
				directory.toString());
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().put("SAMPLE_REDIS_DIR", directory.toString());
		Process started = builder.start();
		this.process = started;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!answersPing(address)) {
			if (System.nanoTime() > deadline || !started.isAlive()) {
				stop();
				throw new IOException("redis-server did not answer on port " + address.getPort());
			}
			sleep();
		}
	}

	private synchronized void stop() {
		Process started = this.process;
		if (started != null && started.isAlive()) {
			try {
				started.getOutputStream().close();
				started.waitFor(5, TimeUnit.SECONDS);
			}
			catch (IOException | InterruptedException ex) {
				started.destroyForcibly();
			}
		}
		Path directory = this.directory;
		if (directory != null && (started == null || !started.isAlive())) {
			// Removed by the shell already, unless it could not start or was destroyed.
			FileSystemUtils.deleteRecursively(directory.toFile());
		}
	}

	private static void sleep() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
