package io.github.distributedlock.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;

/**
 * A Redis Cluster of one or three masters, no replicas, for scenario 6. Both are real
 * clusters ({@code cluster-enabled yes}), so every library runs the same cluster client
 * on both and only the number of masters differs: one node that owns all 16384 slots, or
 * {@link RedisClusterTopology}'s three.
 */
final class ClusterShards implements AutoCloseable {

	private static final int SLOTS = 16384;

	private static final long READY_TIMEOUT_MILLIS = 20_000;

	private final List<RedisProcess> masters;

	private final AutoCloseable resources;

	private ClusterShards(List<RedisProcess> masters, AutoCloseable resources) {
		this.masters = masters;
		this.resources = resources;
	}

	/**
	 * Start a cluster and wait until it serves every slot.
	 * @param masters 1 or 3
	 * @return the running cluster, which the caller closes
	 */
	static ClusterShards start(int masters) {
		if (masters == RedisClusterTopology.MASTERS) {
			RedisClusterTopology topology = RedisClusterTopology.start();
			return new ClusterShards(topology.masters(), topology);
		}
		if (masters != 1) {
			throw new IllegalArgumentException(
					"A benchmark cluster has 1 or " + RedisClusterTopology.MASTERS + " masters, not " + masters);
		}
		// A node that never met a peer does not know its own address and announces an
		// empty one, which clients
		// cannot connect to.
		RedisProcess node = RedisProcess.launch("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
				"--cluster-port", Integer.toString(freePort()), "--cluster-announce-ip", "127.0.0.1");
		try {
			node.command("CLUSTER", "ADDSLOTSRANGE", "0", Integer.toString(SLOTS - 1));
			awaitOk(node);
			return new ClusterShards(List.of(node), node);
		}
		catch (RuntimeException ex) {
			node.close();
			throw ex;
		}
	}

	/**
	 * Return the masters, each serving a share of the slots.
	 */
	List<RedisProcess> masters() {
		return this.masters;
	}

	/**
	 * Return what the masters have used so far, each.
	 */
	List<RedisUsage> usage() {
		return this.masters.stream().map(RedisUsage::take).toList();
	}

	/**
	 * Empty every master.
	 */
	void flushAll() {
		this.masters.forEach(RedisProcess::flushAll);
	}

	/**
	 * Reset {@code INFO commandstats} on every master.
	 */
	void resetStats() {
		this.masters.forEach(RedisProcess::resetStats);
	}

	/**
	 * Return every command the masters executed since the reset, without the harness's
	 * own.
	 */
	long serverCommands() {
		return this.masters.stream()
			.flatMap((master) -> master.commandCalls().entrySet().stream())
			.filter((entry) -> !MonitorCapture.IGNORED.contains(entry.getKey()))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

	@Override
	public void close() {
		try {
			this.resources.close();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not stop the cluster " + this.masters, ex);
		}
	}

	private static void awaitOk(RedisProcess node) {
		long deadline = System.currentTimeMillis() + READY_TIMEOUT_MILLIS;
		while (!String.valueOf(node.command("CLUSTER", "INFO")).contains("cluster_state:ok")) {
			if (System.currentTimeMillis() > deadline) {
				throw new IllegalStateException("The one-master cluster " + node + " is not ok after "
						+ READY_TIMEOUT_MILLIS + " ms: " + node.command("CLUSTER", "INFO"));
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + node, ex);
			}
		}
	}

	/**
	 * Return a free loopback port for the node's cluster bus, which Redis 7 lets us
	 * choose ({@code cluster-port}).
	 */
	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free port for the cluster bus", ex);
		}
	}

}
