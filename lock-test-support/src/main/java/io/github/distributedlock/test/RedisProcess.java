package io.github.distributedlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} process launched on a free loopback port, which tests can stop,
 * pause and kill, and which never outlives the JVM.
 * <p>
 * Every instance has its own temporary directory holding {@code redis.log} (the server
 * log) and {@code redis.out} (its console output). Nothing is persisted: data is gone
 * after {@link #stop()} or {@link #kill()}. Several instances with extra arguments (such
 * as {@code --replicaof} or {@code --cluster-enabled yes}) are the building blocks of
 * {@link RedisSentinelTopology} and {@link RedisClusterTopology}.
 */
public final class RedisProcess implements ManagedRedisServer {

	private static final String HOST = LoopbackPorts.HOST;

	private static final int LAUNCH_ATTEMPTS = 5;

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration STARTUP_POLL = Duration.ofMillis(10);

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

	private final Path binary;

	private final List<String> extraArgs;

	private final boolean hasConfigFile;

	private final @Nullable String password;

	private final ServerDirectory directory;

	private final int port;

	private final RedisClient client;

	private @Nullable TetheredProcess process;

	private long pid;

	private boolean paused;

	private boolean closed;

	private RedisProcess(Path binary, int fixedPort, List<String> extraArgs, List<String> configLines,
			Duration timeout) {
		this.binary = binary;
		this.extraArgs = List.copyOf(extraArgs);
		this.hasConfigFile = !configLines.isEmpty();
		this.password = passwordOf(this.extraArgs);
		this.directory = ServerDirectory.create();
		try {
			if (this.hasConfigFile) {
				// Written once: a restarted Sentinel must find what it saved there, not
				// the initial lines.
				writeConfigFile(configLines);
			}
			this.port = launchOnFreePort(fixedPort);
		}
		catch (RuntimeException ex) {
			this.directory.delete();
			throw ex;
		}
		this.client = new RedisClient(HOST, this.port, timeout, RedisClient.handshake(null, this.password, 0));
		OpenServers.register(this);
		// Goes to the test class's output: which server every suite ran against. Not to
		// stdout, which child JVMs that launch servers use to talk to their tests.
		System.err.println("[redis-test] launched " + RedisBinary.describe(binary) + " on " + HOST + ":" + this.port);
	}

	/**
	 * Launch a server on a free port with the {@code redis-server} found by
	 * {@link RedisServers#redisServerBinary()}, or the bundled Redis 6.2 when there is
	 * none.
	 * @param extraArgs arguments appended to the command line, such as
	 * {@code "--maxmemory", "10mb"}
	 * @return the running server
	 * @throws IllegalStateException if there is no binary or the server does not start
	 */
	public static RedisProcess launch(String... extraArgs) {
		return builder().args(extraArgs).launch();
	}

	/**
	 * Start building a server with a fixed port, a specific binary or a shorter command
	 * timeout.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	@Override
	public String host() {
		return HOST;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public String uri() {
		String credentials = (this.password != null)
				? ":" + URLEncoder.encode(this.password, StandardCharsets.UTF_8) + "@" : "";
		return "redis://" + credentials + HOST + ":" + this.port;
	}

	/**
	 * Return the temporary directory holding the server's working files and logs, deleted
	 * by {@link #close()}.
	 * @return the directory
	 */
	public Path directory() {
		return this.directory.path();
	}

	@Override
	public synchronized boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	/**
	 * Stop the server with SIGTERM (SIGKILL when paused or when it does not exit within
	 * 10 seconds) and wait until its port is free.
	 */
	@Override
	public synchronized void stop() {
		TetheredProcess running = this.process;
		if (running == null) {
			return;
		}
		this.client.disconnect();
		if (this.paused) {
			// SIGTERM would stay pending until SIGCONT.
			running.kill();
		}
		else {
			running.terminate(SHUTDOWN_TIMEOUT);
		}
		release(running);
	}

	@Override
	public synchronized void start() {
		requireOpen();
		TetheredProcess current = this.process;
		if (current != null) {
			if (current.isAlive()) {
				return;
			}
			// It exited on its own, for example after a SHUTDOWN command.
			release(current);
		}
		LoopbackPorts.awaitFree(this.port, SHUTDOWN_TIMEOUT);
		launch(this.port);
	}

	@Override
	public synchronized void restart() {
		stop();
		start();
	}

	@Override
	public synchronized void pause() {
		running("pause").signal(PosixSignal.STOP);
		this.paused = true;
	}

	@Override
	public synchronized void resume() {
		running("resume").signal(PosixSignal.CONT);
		this.paused = false;
	}

	@Override
	public synchronized void kill() {
		TetheredProcess running = this.process;
		if (running == null) {
			return;
		}
		this.client.disconnect();
		running.kill();
		release(running);
	}

	@Override
	public synchronized long pid() {
		return this.pid;
	}

	@Override
	public @Nullable Object command(String... args) {
		// Not synchronized: a command blocked on a paused server must not block resume()
		// in another thread.
		return this.client.command(args);
	}

	@Override
	public RespConnection connect() {
		return this.client.open();
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		try {
			stop();
		}
		finally {
			this.closed = true;
			this.client.close();
			OpenServers.unregister(this);
			this.directory.delete();
		}
	}

	@Override
	public String toString() {
		return "RedisProcess[" + HOST + ":" + this.port + ", pid " + this.pid + "]";
	}

	private int launchOnFreePort(int fixedPort) {
		if (fixedPort != 0) {
			launch(fixedPort);
			return fixedPort;
		}
		for (int attempt = 1;; attempt++) {
			int candidate = LoopbackPorts.findFree();
			try {
				launch(candidate);
				return candidate;
			}
			catch (PortTakenException ex) {
				if (attempt == LAUNCH_ATTEMPTS) {
					throw ex;
				}
			}
		}
	}

	private void launch(int port) {
		TetheredProcess started;
		try {
			started = TetheredProcess.start(commandLine(port), this.directory.consoleFile(), this.directory.path());
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not launch " + this.binary + ": " + ex.getMessage(), ex);
		}
		try {
			awaitReady(started, port);
		}
		catch (RuntimeException ex) {
			started.release();
			throw ex;
		}
		this.process = started;
		this.pid = started.pid();
		this.paused = false;
	}

	private void writeConfigFile(List<String> lines) {
		try {
			Files.write(this.directory.configFile(), lines, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + this.directory.configFile(), ex);
		}
	}

	/**
	 * Return the extra arguments as this binary takes them: Redis 6.2 (the bundled one)
	 * refuses {@code --enable-debug-command}, which Redis 7.0 added to guard
	 * {@code DEBUG}, and always allows {@code DEBUG}, so the setting is dropped there.
	 */
	static List<String> argsFor(Path binary, List<String> extraArgs) {
		int at = extraArgs.indexOf("--enable-debug-command");
		if (at < 0 || RedisBinary.majorVersion(binary) >= 7) {
			return extraArgs;
		}
		List<String> args = new ArrayList<>(extraArgs);
		args.subList(at, Math.min(at + 2, args.size())).clear();
		return args;
	}

	private List<String> commandLine(int port) {
		List<String> command = new ArrayList<>(List.of(this.binary.toString()));
		if (this.hasConfigFile) {
			// redis-server only reads a config file given as its first argument:
			// redis-server <file> --sentinel.
			command.add(this.directory.configFile().toString());
		}
		command.addAll(List.of("--bind", HOST, "--port", Integer.toString(port), "--save", "", "--appendonly", "no",
				"--dir", this.directory.path().toString(), "--daemonize", "no", "--protected-mode", "no", "--logfile",
				this.directory.logFile().toString()));
		command.addAll(argsFor(this.binary, this.extraArgs));
		return command;
	}

	private void awaitReady(TetheredProcess started, int port) {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (!isServing(port, started.pid())) {
			if (!started.isAlive()) {
				String log = this.directory.tail();
				if (log.contains("Address already in use")) {
					throw new PortTakenException(port, log);
				}
				throw new IllegalStateException(
						"redis-server exited while starting on port " + port + ". Log tail:\n" + log);
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
						+ STARTUP_TIMEOUT.toSeconds() + " s. Log tail:\n" + this.directory.tail());
			}
			sleep(STARTUP_POLL);
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

	/**
	 * Whether the server with this pid answers PING on the port. Another server that took
	 * the port first answers too, so checking the pid is what tells a successful launch
	 * from a lost race.
	 */
	private boolean isServing(int port, long pid) {
		try (RespConnection connection = RespConnection.connect(HOST, port, PROBE_TIMEOUT)) {
			if (this.password != null) {
				connection.exchange(List.of("AUTH", this.password));
			}
			if (!"PONG".equals(connection.exchange(List.of("PING")))) {
				return false;
			}
			Object info = connection.exchange(List.of("INFO", "server"));
			return (info instanceof String text) && text.contains("\nprocess_id:" + pid + "\r");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private void release(TetheredProcess running) {
		running.release();
		this.process = null;
		this.paused = false;
		LoopbackPorts.awaitFree(this.port, SHUTDOWN_TIMEOUT);
	}

	private TetheredProcess running(String operation) {
		requireOpen();
		TetheredProcess running = this.process;
		if (running == null || !running.isAlive()) {
			throw new IllegalStateException(
					"Cannot " + operation + " redis-server on port " + this.port + ": it is not running");
		}
		return running;
	}

	private void requireOpen() {
		if (this.closed) {
			throw new IllegalStateException("redis-server on port " + this.port + " has been closed");
		}
	}

	private static @Nullable String passwordOf(List<String> args) {
		int index = args.lastIndexOf("--requirepass");
		return (index >= 0 && index + 1 < args.size()) ? args.get(index + 1) : null;
	}

	/**
	 * Builder for a {@link RedisProcess} with a fixed port, a specific binary, extra
	 * arguments or another timeout.
	 */
	public static final class Builder {

		private @Nullable Path binary;

		private int port;

		private final List<String> args = new ArrayList<>();

		private final List<String> configLines = new ArrayList<>();

		private Duration timeout = Duration.ofSeconds(5);

		private Builder() {
		}

		/**
		 * Use this executable instead of the one {@link RedisServers#redisServerBinary()}
		 * finds.
		 * @param binary the {@code redis-server} executable
		 * @return this builder
		 */
		public Builder binary(Path binary) {
			this.binary = binary;
			return this;
		}

		/**
		 * Listen on this port rather than on a free one, failing if it is taken.
		 * @param port the port, or {@code 0} for a free one
		 * @return this builder
		 */
		public Builder port(int port) {
			if (port < 0 || port > 65535) {
				throw new IllegalArgumentException("Port must be between 0 and 65535, was " + port);
			}
			this.port = port;
			return this;
		}

		/**
		 * Append arguments to the command line, such as {@code "--maxmemory", "10mb"}. A
		 * {@code --requirepass} argument makes {@link RedisProcess#command(String...)}
		 * authenticate and {@link RedisProcess#uri()} carry the password.
		 * @param args the arguments
		 * @return this builder
		 */
		public Builder args(String... args) {
			this.args.addAll(List.of(args));
			return this;
		}

		/**
		 * Write lines to {@code redis.conf} in the server's directory and start the
		 * server with that file, which Sentinel requires ({@code "--sentinel"} in
		 * {@link #args(String...)}) because it saves what it learns there. The file
		 * survives restarts; command-line arguments override it.
		 * @param lines the configuration lines, such as
		 * {@code "sentinel monitor mymaster 127.0.0.1 6390 2"}
		 * @return this builder
		 */
		public Builder config(String... lines) {
			this.configLines.addAll(List.of(lines));
			return this;
		}

		/**
		 * Set the connect and read timeout of {@link RedisProcess#command(String...)}, 5
		 * seconds unless set.
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			if (timeout.isNegative() || timeout.isZero()) {
				throw new IllegalArgumentException("Timeout must be positive, was " + timeout);
			}
			this.timeout = timeout;
			return this;
		}

		/**
		 * Launch the server and wait until it answers {@code PING}.
		 * @return the running server
		 * @throws IllegalStateException if there is no binary or the server does not
		 * start within 10 seconds
		 */
		public RedisProcess launch() {
			Path executable = (this.binary != null) ? this.binary : RedisBinary.require(System::getenv);
			return new RedisProcess(executable, this.port, this.args, this.configLines, this.timeout);
		}

	}

	/**
	 * Thrown when another process bound the chosen port first, so that a different port
	 * can be tried.
	 */
	private static final class PortTakenException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		PortTakenException(int port, String log) {
			super("Port " + port + " is already in use. Log tail:\n" + log);
		}

	}

}
