package io.github.distributedlock.test;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis server in a Docker container started with Testcontainers, for machines without
 * a {@code redis-server} binary.
 * <p>
 * Every Testcontainers reference lives in this class so that the rest of the module works
 * without Testcontainers on the classpath. It is not a {@link ManagedRedisServer}:
 * restarting a container would change its mapped port, so it can only be {@link #pause()
 * paused} and {@link #resume() resumed} ({@code docker pause}).
 */
public final class ContainerRedis implements RedisServer {

	/**
	 * The image used unless another one is given.
	 */
	public static final String DEFAULT_IMAGE = "redis:7";

	private static final int REDIS_PORT = 6379;

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final GenericContainer<?> container;

	private final RedisClient client;

	private boolean closed;

	private ContainerRedis(GenericContainer<?> container) {
		this.container = container;
		this.client = new RedisClient(host(), port(), TIMEOUT, RedisClient.handshake(null, null, 0));
	}

	/**
	 * Start a container from {@value #DEFAULT_IMAGE} and wait until Redis accepts
	 * connections.
	 * @return the running server
	 */
	public static ContainerRedis launch() {
		return launch(DEFAULT_IMAGE);
	}

	/**
	 * Start a container from an image and wait until Redis accepts connections.
	 * @param image a Redis image, such as {@code redis:7-alpine}
	 * @return the running server
	 */
	public static ContainerRedis launch(String image) {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
			.withExposedPorts(REDIS_PORT)
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
		container.start();
		ContainerRedis server = new ContainerRedis(container);
		OpenServers.register(server);
		return server;
	}

	static boolean isDockerAvailable() {
		return DockerClientFactory.instance().isDockerAvailable();
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(REDIS_PORT);
	}

	@Override
	public String uri() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Freeze the server with {@code docker pause}: connections stay open but nothing is
	 * answered until {@link #resume()}.
	 */
	public void pause() {
		this.container.getDockerClient().pauseContainerCmd(this.container.getContainerId()).exec();
	}

	/**
	 * Let a {@link #pause() paused} server run again ({@code docker unpause}).
	 */
	public void resume() {
		this.container.getDockerClient().unpauseContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public @Nullable Object command(String... args) {
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
		this.closed = true;
		this.client.close();
		OpenServers.unregister(this);
		this.container.stop();
	}

	@Override
	public String toString() {
		return "ContainerRedis[" + this.container.getDockerImageName() + "]";
	}

}
