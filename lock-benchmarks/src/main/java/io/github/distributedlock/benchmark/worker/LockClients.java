package io.github.distributedlock.benchmark.worker;

import java.util.EnumMap;
import java.util.Map;

import io.github.distributedlock.benchmark.Library;

/**
 * The clients of one worker JVM, created on first use and kept open until the worker
 * exits, so connection setup never falls into a measured phase. They all connect to one
 * standalone server, or all to one Redis Cluster.
 */
final class LockClients implements AutoCloseable {

	private final String host;

	private final int port;

	private final boolean cluster;

	private final Map<Library, LockClient> clients = new EnumMap<>(Library.class);

	LockClients(String host, int port, boolean cluster) {
		this.host = host;
		this.port = port;
		this.cluster = cluster;
	}

	synchronized LockClient get(Library library) {
		return this.clients.computeIfAbsent(library, this::create);
	}

	private LockClient create(Library library) {
		return switch (library) {
			case FLOOR -> new FloorClient(this.host, this.port, this.cluster);
			case FENCED_FLOOR -> WaitingFloorClient.fenced(this.host, this.port, this.cluster);
			case ENGINE_FLOOR -> WaitingFloorClient.engine(this.host, this.port, this.cluster);
			case THIS_PROJECT -> new ThisProjectClient(this.host, this.port, this.cluster, true);
			case THIS_PROJECT_STRICT -> new ThisProjectClient(this.host, this.port, this.cluster, false);
			case THIS_PROJECT_REACTIVE -> new ThisProjectReactiveClient(this.host, this.port, this.cluster);
			case REDISSON -> new RedissonLockClient(this.host, this.port, this.cluster);
			case SPRING_INTEGRATION -> new SpringIntegrationClient(this.host, this.port, this.cluster);
		};
	}

	@Override
	public synchronized void close() {
		for (LockClient client : this.clients.values()) {
			try {
				client.close();
			}
			catch (RuntimeException ex) {
				// Shutting down anyway; the next client still gets closed.
			}
		}
		this.clients.clear();
	}

}
