package io.github.distributedlock.test;

import java.util.List;

/**
 * Several {@link RedisProcess redis-server processes} on loopback working as one
 * deployment, such as a Sentinel setup or a Cluster, started together and closed
 * together.
 * <p>
 * Implementations are thread-safe. Each process is a plain {@link RedisProcess}: tests
 * may stop, pause or kill any of them to provoke a failure, and like every launched
 * process none of them outlives the JVM.
 */
public interface RedisTopology extends AutoCloseable {

	/**
	 * Return every process of the topology in launch order, whatever its current role.
	 * @return an immutable list of the processes
	 */
	List<RedisProcess> processes();

	/**
	 * Stop every process, free its ports and delete its files. Does nothing when already
	 * closed.
	 * @throws IllegalStateException if a process could not be stopped, after trying all
	 * the others
	 */
	@Override
	void close();

}
