package io.github.distributedlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Joins launched nodes into a cluster over plain commands, as {@code redis-cli --cluster
 * create} does, so that no {@code redis-cli} is needed: distinct config epochs, an even
 * share of the slots for each master, {@code CLUSTER MEET}, then
 * {@code CLUSTER REPLICATE} once every node knows every other. The first
 * {@link RedisClusterTopology#MASTERS} nodes become masters; replica {@code i} follows
 * master {@code i % MASTERS}. What was done is kept for diagnostics.
 */
final class ClusterCreation {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	private final List<RedisProcess> nodes;

	private final int masters;

	private final List<String> steps = new ArrayList<>();

	ClusterCreation(List<RedisProcess> nodes, int masters) {
		this.nodes = List.copyOf(nodes);
		this.masters = masters;
	}

	/**
	 * Assign the slots, introduce the nodes to each other and attach the replicas.
	 * @throws IllegalStateException if a command fails or the nodes do not all meet
	 * within 20 seconds
	 */
	void run() {
		for (int i = 0; i < this.masters; i++) {
			RedisProcess master = this.nodes.get(i);
			// Distinct epochs, as redis-cli sets them, so that no collision must be
			// resolved before the cluster agrees on who owns which slot.
			step(master, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
			step(master, addSlots(i));
		}
		RedisProcess first = this.nodes.get(0);
		for (RedisProcess node : this.nodes.subList(1, this.nodes.size())) {
			List<String> meet = new ArrayList<>(List.of("CLUSTER", "MEET", node.host(), Integer.toString(node.port())));
			String busPort = busPort(node);
			if (busPort != null) {
				// Redis 7.0+ takes a bus port of its own; without it MEET tries port +
				// 10000.
				meet.add(busPort);
			}
			step(first, meet.toArray(String[]::new));
		}
		Await.until("every node knows all " + this.nodes.size() + " nodes", TIMEOUT,
				() -> this.nodes.stream().allMatch(this::knowsEveryNode), this::outputText);
		for (int i = this.masters; i < this.nodes.size(); i++) {
			String masterId = String.valueOf(this.nodes.get(i % this.masters).command("CLUSTER", "MYID"));
			step(this.nodes.get(i), "CLUSTER", "REPLICATE", masterId);
		}
	}

	/**
	 * Return the commands sent, to explain a cluster that never became ready.
	 */
	String outputText() {
		return String.join("\n", this.steps);
	}

	private String[] addSlots(int master) {
		int from = ClusterHashSlot.SLOTS * master / this.masters;
		int to = ClusterHashSlot.SLOTS * (master + 1) / this.masters;
		// ADDSLOTSRANGE needs Redis 7.0; ADDSLOTS with every slot works on 6.2 too.
		List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
		for (int slot = from; slot < to; slot++) {
			command.add(Integer.toString(slot));
		}
		return command.toArray(String[]::new);
	}

	private static @Nullable String busPort(RedisProcess node) {
		List<?> setting = (List<?>) node.command("CONFIG", "GET", "cluster-port");
		String port = (setting == null || setting.isEmpty()) ? "0" : String.valueOf(setting.get(1));
		return "0".equals(port) ? null : port;
	}

	private boolean knowsEveryNode(RedisProcess node) {
		String known = InfoFields.parse(node.command("CLUSTER", "INFO")).get("cluster_known_nodes");
		return Integer.toString(this.nodes.size()).equals(known);
	}

	private void step(RedisProcess node, String... command) {
		String shown = (command.length > 6) ? String.join(" ", List.of(command).subList(0, 3)) + " ... "
				+ command[command.length - 1] + " (" + (command.length - 2) + " slots)" : String.join(" ", command);
		this.steps.add(HostAndPort.of(node) + " " + shown);
		Object reply = node.command(command);
		this.steps.add("  -> " + reply);
	}

}
