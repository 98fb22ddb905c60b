package io.github.distributedlock.test;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster of launched processes: three masters sharing the 16384 hash slots, each
 * with the same number of replicas (none unless asked), joined over plain commands
 * ({@link ClusterCreation}), so that no {@code redis-cli} is needed.
 * <p>
 * Nodes deem a silent peer failed after 2 seconds, so killing a master that has replicas
 * fails over within seconds. Each node keeps its cluster state in {@code nodes.conf} in
 * its {@link RedisProcess#directory() directory}, so a restarted node rejoins the cluster
 * (empty, as nothing else is persisted). On Redis 7.0 and later the cluster bus of each
 * node listens on a free port of its own ({@code cluster-port}); Redis 6.2 has no such
 * setting, so its nodes take a port whose port plus 10000 is free as well. Methods that
 * ask every node skip nodes that are not running. All methods are thread-safe.
 */
public final class RedisClusterTopology implements RedisTopology {

	/**
	 * The number of masters, the smallest cluster {@code redis-cli --cluster create}
	 * accepts, and so the one users know.
	 */
	public static final int MASTERS = 3;

	private static final int SLOTS = ClusterHashSlot.SLOTS;

	private static final String NODE_TIMEOUT_MILLIS = "2000";

	private static final int BUS_PORT_ATTEMPTS = 3;

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration REPLICATION_TIMEOUT = Duration.ofSeconds(5);

	private final List<RedisProcess> nodes;

	private final int replicasPerMaster;

	private final ClusterCreation creation;

	private boolean closed;

	private RedisClusterTopology(List<RedisProcess> nodes, int replicasPerMaster, ClusterCreation creation) {
		this.nodes = List.copyOf(nodes);
		this.replicasPerMaster = replicasPerMaster;
		this.creation = creation;
	}

	/**
	 * Launch three masters without replicas, join them into a cluster and wait until
	 * every node reports it ok.
	 * @return the running cluster, which the caller closes
	 * @throws IllegalStateException if there is no {@code redis-server} binary, or the
	 * cluster is not ok within 20 seconds; whatever was launched is closed
	 */
	public static RedisClusterTopology start() {
		return start(0);
	}

	/**
	 * Launch three masters with replicas, join them into a cluster and wait until every
	 * node reports it ok and every replica is in sync. The first three nodes launched are
	 * the masters, and replica {@code i} follows master {@code i % 3}.
	 * @param replicasPerMaster the number of replicas of each master, zero or more
	 * @return the running cluster, which the caller closes
	 * @throws IllegalStateException if there is no {@code redis-server} binary, or the
	 * cluster is not ok within 20 seconds; whatever was launched is closed
	 */
	public static RedisClusterTopology start(int replicasPerMaster) {
		requireValidReplicas(replicasPerMaster);
		Path server = RedisBinary.require(System::getenv);
		ProcessGroup group = new ProcessGroup();
		try {
			for (int i = 0; i < MASTERS * (1 + replicasPerMaster); i++) {
				group.add(node(server));
			}
			ClusterCreation creation = new ClusterCreation(group.list(), MASTERS);
			creation.run();
			RedisClusterTopology topology = new RedisClusterTopology(group.list(), replicasPerMaster, creation);
			topology.awaitReady();
			return topology;
		}
		catch (RuntimeException ex) {
			throw group.abandon(ex);
		}
	}

	static int requireValidReplicas(int replicasPerMaster) {
		if (replicasPerMaster < 0) {
			throw new IllegalArgumentException("Replicas per master must be zero or more, was " + replicasPerMaster);
		}
		return replicasPerMaster;
	}

	/**
	 * Return the hash slot of a key, computed like Redis does ({@code CLUSTER KEYSLOT}):
	 * CRC16 of the key encoded as UTF-8, or of the part between the first {@code {} and
	 * the next {@code }} when that part is not empty, modulo 16384.
	 * @param key the key
	 * @return the slot, from 0 to 16383
	 */
	public static int slot(String key) {
		return ClusterHashSlot.of(key);
	}

	/**
	 * Return every node in launch order.
	 * @return an immutable list of the nodes
	 */
	public List<RedisProcess> nodes() {
		return this.nodes;
	}

	@Override
	public List<RedisProcess> processes() {
		return this.nodes;
	}

	/**
	 * Return the number of replicas each master was created with.
	 * @return the replicas per master
	 */
	public int replicasPerMaster() {
		return this.replicasPerMaster;
	}

	/**
	 * Return the running nodes that currently have role master ({@code ROLE}), in launch
	 * order.
	 * @return an immutable list of masters
	 */
	public List<RedisProcess> masters() {
		return nodesWithRole("master");
	}

	/**
	 * Return the running nodes that currently have role replica ({@code ROLE}), in launch
	 * order.
	 * @return an immutable list of replicas
	 */
	public List<RedisProcess> replicas() {
		return nodesWithRole("slave");
	}

	/**
	 * Return the master serving the slot of a key, from the {@code CLUSTER SLOTS} reply
	 * of the first running node that answers.
	 * @param key the key
	 * @return the node a client must send commands on this key to
	 * @throws IllegalStateException if no node answers or none serves the slot
	 */
	public RedisProcess nodeForKey(String key) {
		int slot = slot(key);
		IllegalStateException failure = new IllegalStateException(
				"No running node of " + this + " answered CLUSTER SLOTS for key '" + key + "' (slot " + slot + ")");
		for (RedisProcess node : this.nodes) {
			if (node.isRunning()) {
				try {
					return nodeServing(slot, node.command("CLUSTER", "SLOTS"), key);
				}
				catch (UncheckedIOException ex) {
					failure.addSuppressed(ex);
				}
			}
		}
		throw failure;
	}

	/**
	 * Delete every key on every master ({@code FLUSHALL}) and wait until their connected
	 * replicas have applied it.
	 * @throws IllegalStateException if a replica does not acknowledge within 5 seconds
	 */
	public void flushAll() {
		for (RedisProcess master : masters()) {
			master.command("FLUSHALL");
			long replicas = Long.parseLong(replication(master).getOrDefault("connected_slaves", "0"));
			if (replicas > 0) {
				// So that a test reading from a replica right after sees no old keys.
				Object acknowledged = master.command("WAIT", Long.toString(replicas),
						Long.toString(REPLICATION_TIMEOUT.toMillis()));
				if (!(acknowledged instanceof Long count) || count < replicas) {
					throw new IllegalStateException(
							"Only " + acknowledged + " of the " + replicas + " replicas of " + HostAndPort.of(master)
									+ " acknowledged FLUSHALL within " + REPLICATION_TIMEOUT.toSeconds() + " s");
				}
			}
		}
	}

	/**
	 * Return how often each command was called, summed over the running nodes, from
	 * {@code INFO commandstats}.
	 * @return an immutable map from lowercase command name to calls
	 * @see RedisServer#commandCalls()
	 */
	public Map<String, Long> commandCalls() {
		Map<String, Long> total = new TreeMap<>();
		for (RedisProcess node : this.nodes) {
			if (node.isRunning()) {
				node.commandCalls().forEach((name, calls) -> total.merge(name, calls, Long::sum));
			}
		}
		return Collections.unmodifiableMap(total);
	}

	/**
	 * Return how often one command was called, summed over the running nodes.
	 * @param name the command name, in any case
	 * @return the number of calls, zero when it was never called
	 */
	public long commandCalls(String name) {
		return commandCalls().getOrDefault(CommandStats.normalize(name), 0L);
	}

	/**
	 * Reset the statistics behind {@link #commandCalls()} on every running node.
	 */
	public void resetStats() {
		for (RedisProcess node : this.nodes) {
			if (node.isRunning()) {
				node.resetStats();
			}
		}
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		ProcessGroup.closeAll(this.nodes);
	}

	@Override
	public String toString() {
		return "RedisClusterTopology" + this.nodes.stream().map(HostAndPort::of).toList();
	}

	private static RedisProcess node(Path binary) {
		boolean busPortSetting = RedisBinary.majorVersion(binary) >= 7;
		for (int attempt = 1;; attempt++) {
			int busPort = LoopbackPorts.findFree();
			try {
				// A relative nodes.conf lands in the node's own directory, which
				// redis-server makes its working one.
				// Redis delays a diskless sync by 5 s by default in case more replicas
				// come; here they all exist.
				RedisProcess.Builder builder = RedisProcess.builder()
					.binary(binary)
					.args("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout",
							NODE_TIMEOUT_MILLIS, "--repl-diskless-sync-delay", "0");
				if (busPortSetting) {
					return builder.args("--cluster-port", Integer.toString(busPort)).launch();
				}
				return builder.port(LoopbackPorts.findFreeWithBus()).launch();
			}
			catch (IllegalStateException ex) {
				// The bus port was free a moment ago, but another process may have bound
				// it first.
				if (attempt == BUS_PORT_ATTEMPTS || !String.valueOf(ex.getMessage()).contains("already in use")) {
					throw ex;
				}
			}
		}
	}

	private void awaitReady() {
		Await.until(
				"every node reports cluster_state:ok with all " + SLOTS + " slots assigned and knows all "
						+ this.nodes.size() + " nodes, " + MASTERS + " nodes are masters and every replica is in sync",
				STARTUP_TIMEOUT, () -> this.nodes.stream().allMatch(this::isReady) && masters().size() == MASTERS,
				this::describe);
	}

	private boolean isReady(RedisProcess node) {
		Map<String, String> info = InfoFields.parse(node.command("CLUSTER", "INFO"));
		String slots = Integer.toString(SLOTS);
		if (!"ok".equals(info.get("cluster_state")) || !slots.equals(info.get("cluster_slots_assigned"))
				|| !slots.equals(info.get("cluster_slots_ok"))
				|| !Integer.toString(this.nodes.size()).equals(info.get("cluster_known_nodes"))) {
			return false;
		}
		List<?> role = role(node);
		return "master".equals(role.get(0)) || (role.size() > 3 && "connected".equals(role.get(3)));
	}

	private RedisProcess nodeServing(int slot, @Nullable Object slotsReply, String key) {
		if (slotsReply instanceof List<?> ranges) {
			for (Object item : ranges) {
				List<?> range = (List<?>) item;
				if (((Number) range.get(0)).intValue() <= slot && slot <= ((Number) range.get(1)).intValue()) {
					int port = ((Number) ((List<?>) range.get(2)).get(1)).intValue();
					for (RedisProcess node : this.nodes) {
						if (node.port() == port) {
							return node;
						}
					}
					throw new IllegalStateException("Slot " + slot + " of key '" + key + "' is served on port " + port
							+ ", which is not a node of " + this);
				}
			}
		}
		throw new IllegalStateException("No node serves slot " + slot + " of key '" + key + "': " + slotsReply);
	}

	private List<RedisProcess> nodesWithRole(String wanted) {
		return this.nodes.stream()
			.filter(RedisProcess::isRunning)
			.filter((node) -> wanted.equals(role(node).get(0)))
			.toList();
	}

	private static List<?> role(RedisProcess node) {
		if (node.command("ROLE") instanceof List<?> role) {
			return role;
		}
		throw new IllegalStateException("ROLE of " + node + " gave no list");
	}

	private static Map<String, String> replication(RedisProcess node) {
		return InfoFields.parse(node.command("INFO", "replication"));
	}

	private String describe() {
		StringBuilder description = new StringBuilder("Nodes report:");
		for (RedisProcess node : this.nodes) {
			description.append(" ").append(HostAndPort.of(node)).append(" -> ");
			try {
				Map<String, String> info = InfoFields.parse(node.command("CLUSTER", "INFO"));
				description.append(info.get("cluster_state"))
					.append(", ")
					.append(info.get("cluster_slots_assigned"))
					.append(" slots, ")
					.append(info.get("cluster_known_nodes"))
					.append(" nodes known, role ")
					.append(role(node));
			}
			catch (RuntimeException ex) {
				description.append("no answer (").append(ex.getMessage()).append(")");
			}
			description.append(";");
		}
		return description.append(" Commands sent to create it:\n").append(this.creation.outputText()).toString();
	}

}
