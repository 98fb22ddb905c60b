package io.github.distributedlock.test;

import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * Entry points that find or launch a real Redis server for tests.
 */
public final class RedisServers {

	private static final String NO_REDIS = "No Redis server for tests, and the one bundled in the embedded-redis jar "
			+ "runs on Linux x86-64 only. Install redis-server (apt-get install -y "
			+ "redis-server, or brew install redis), set REDIS_SERVER to the path of a redis-server binary, set "
			+ "REDIS_URL to a Redis dedicated to tests, or run Docker with org.testcontainers:testcontainers on the "
			+ "test classpath";

	private RedisServers() {
	}

	/**
	 * Return a server, taking the first of:
	 * <ol>
	 * <li>{@code REDIS_URL} set: an {@link ExternalRedis} (not managed)</li>
	 * <li>{@code REDIS_TESTCONTAINERS=true}: a {@link ContainerRedis}</li>
	 * <li>a {@code redis-server} binary ({@code REDIS_SERVER}, the {@code PATH}, or else
	 * the Redis 6.2 bundled in the {@code embedded-redis} jar where it runs): a
	 * {@link RedisProcess}</li>
	 * <li>Testcontainers on the classpath and Docker reachable: a
	 * {@link ContainerRedis}</li>
	 * </ol>
	 * Tests that stop, pause or kill the server should call {@link #launch(String...)}
	 * instead.
	 * @return a running server, which the caller closes
	 * @throws IllegalStateException saying what to install when none of these is
	 * available
	 */
	public static RedisServer start() {
		return start(System::getenv, BundledRedis::runsHere, RedisServers::isDockerAvailable);
	}

	/**
	 * Launch a {@code redis-server} process on a free loopback port, whatever
	 * {@code REDIS_URL} says.
	 * @param extraArgs arguments appended to the command line, such as
	 * {@code "--maxmemory", "10mb"}
	 * @return the running, managed server, which the caller closes
	 * @throws IllegalStateException saying what to install when there is no binary
	 */
	public static RedisProcess launch(String... extraArgs) {
		return RedisProcess.builder().args(extraArgs).launch();
	}

	/**
	 * Return the {@code redis-server} binary that {@link #launch(String...)} uses:
	 * {@code REDIS_SERVER} when set, else the first one on the {@code PATH}.
	 * @return the binary, or {@code null} when there is none
	 * @throws IllegalStateException if {@code REDIS_SERVER} is set but is not executable
	 */
	public static @Nullable Path redisServerBinary() {
		return RedisBinary.locate(System::getenv);
	}

	/**
	 * Skip the calling test where the {@code redis-server} that
	 * {@link #launch(String...)} uses is older than a major version: on a machine with no
	 * {@code redis-server} installed, the bundled one is 6.2. With {@code CI=true} it
	 * fails instead, so that CI never skips such a test quietly.
	 * @param major the oldest major version needed
	 * @param needs what needs it, for the message
	 * @throws org.opentest4j.TestAbortedException to skip the test
	 * @throws IllegalStateException in CI
	 */
	public static void assumeAtLeast(int major, String needs) {
		Path binary = RedisBinary.require(System::getenv);
		if (RedisBinary.majorVersion(binary) >= major) {
			return;
		}
		String message = needs + " needs Redis " + major + ".0 or later, but the tests launch "
				+ RedisBinary.describe(binary) + ". Install a newer redis-server or set REDIS_SERVER to one";
		if ("true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new IllegalStateException(message);
		}
		Assumptions.abort(message);
	}

	static RedisServer start(Function<String, @Nullable String> env, BooleanSupplier bundledRuns,
			BooleanSupplier dockerAvailable) {
		String url = env.apply("REDIS_URL");
		if (url != null && !url.isBlank()) {
			return ExternalRedis.connect(url.trim());
		}
		if ("true".equalsIgnoreCase(env.apply("REDIS_TESTCONTAINERS"))) {
			return launchContainer();
		}
		Path binary = RedisBinary.locate(env);
		if (binary != null) {
			return RedisProcess.builder().binary(binary).launch();
		}
		if (bundledRuns.getAsBoolean()) {
			return RedisProcess.builder().binary(RedisBinary.require(env)).launch();
		}
		if (dockerAvailable.getAsBoolean()) {
			return launchContainer();
		}
		throw new IllegalStateException(NO_REDIS);
	}

	private static RedisServer launchContainer() {
		if (!isTestcontainersPresent()) {
			throw new IllegalStateException(
					"REDIS_TESTCONTAINERS=true needs org.testcontainers:testcontainers on the test classpath");
		}
		return ContainerRedis.launch();
	}

	private static boolean isDockerAvailable() {
		if (!isTestcontainersPresent()) {
			return false;
		}
		try {
			return ContainerRedis.isDockerAvailable();
		}
		catch (NoClassDefFoundError | RuntimeException ex) {
			// A partial Testcontainers classpath or a broken Docker setup: treat as no
			// Docker.
			return false;
		}
	}

	private static boolean isTestcontainersPresent() {
		try {
			Class.forName("org.testcontainers.DockerClientFactory", false, RedisServers.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | NoClassDefFoundError ex) {
			return false;
		}
	}

}
