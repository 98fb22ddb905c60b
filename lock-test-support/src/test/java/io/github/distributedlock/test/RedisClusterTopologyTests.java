package io.github.distributedlock.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedisClusterTopology} against real {@code redis-server} processes.
 */
class RedisClusterTopologyTests {

	@RegisterExtension
	static final RedisTopologyExtension<RedisClusterTopology> cluster = RedisTopologyExtension.cluster();

	private static final List<String> KEYS = List.of("foo", "bar", "lock:{a:b}", "lock:{a:b}:fence", "a:b", "{a:b}",
			"{}", "{}foo", "foo{}", "foo{}{bar}", "{{bar}}", "foo{bar}{zap}", "{user1000}.following", "a{b", "a}b{c}",
			"}{", "", "héllo wörld", "锁:{订单-42}", "123456789");

	@BeforeEach
	void flush() {
		cluster.topology().flushAll();
	}

	@Test
	void shouldReportClusterOkOnEveryNode(RedisClusterTopology topology) {
		assertThat(topology.nodes()).hasSize(3).extracting(RedisProcess::port).doesNotHaveDuplicates();
		assertThat(topology.masters()).containsExactlyElementsOf(topology.nodes());
		assertThat(topology.replicas()).isEmpty();
		for (RedisProcess node : topology.nodes()) {
			assertThat(InfoFields.parse(node.command("CLUSTER", "INFO"))).containsEntry("cluster_state", "ok")
				.containsEntry("cluster_slots_assigned", "16384")
				.containsEntry("cluster_known_nodes", "3");
		}
	}

	@Test
	void shouldComputeSameSlotAsRedis(RedisClusterTopology topology) {
		RedisProcess node = topology.nodes().get(0);
		for (String key : KEYS) {
			assertThat(RedisClusterTopology.slot(key)).as("slot of '%s'", key)
				.isEqualTo(((Long) node.command("CLUSTER", "KEYSLOT", key)).intValue());
		}
		assertThat(RedisClusterTopology.slot("lock:{a:b}")).isEqualTo(RedisClusterTopology.slot("a:b"));
	}

	@Test
	void shouldComputeCrc16CheckValue() {
		// 0x31C3 is the published CRC-16/XMODEM check value of "123456789".
		assertThat(ClusterHashSlot.crc16("123456789".getBytes(), 0, 9)).isEqualTo(0x31C3);
		assertThat(RedisClusterTopology.slot("123456789")).isEqualTo(0x31C3);
		assertThat(RedisClusterTopology.slot("{123456789}")).isEqualTo(0x31C3);
	}

	@Test
	void shouldRouteKeyToItsMasterWhileOtherNodesAnswerMoved(RedisClusterTopology topology) {
		Set<RedisProcess> owners = new LinkedHashSet<>();
		for (int i = 0; i < 30; i++) {
			String key = "lock:{order-" + i + "}";
			RedisProcess owner = topology.nodeForKey(key);
			owners.add(owner);
			assertThat(owner.command("SET", key, "v" + i)).isEqualTo("OK");
			assertThat(owner.command("GET", key)).isEqualTo("v" + i);
			for (RedisProcess other : topology.nodes()) {
				if (other != owner) {
					assertThatExceptionOfType(RedisCommandException.class).isThrownBy(() -> other.command("GET", key))
						.withMessage("MOVED " + RedisClusterTopology.slot(key) + " 127.0.0.1:" + owner.port());
				}
			}
		}
		assertThat(owners).as("30 keys spread over every master").hasSize(3);
	}

	@Test
	void shouldFlushEveryMaster(RedisClusterTopology topology) {
		for (int i = 0; i < 30; i++) {
			topology.nodeForKey("key-" + i).command("SET", "key-" + i, "value");
		}
		assertThat(topology.masters()).allSatisfy((master) -> assertThat(master.command("DBSIZE")).isNotEqualTo(0L));
		topology.flushAll();
		assertThat(topology.nodes()).allSatisfy((node) -> assertThat(node.command("DBSIZE")).isEqualTo(0L));
	}

	@Test
	void shouldSumCommandCallsOverNodes(RedisClusterTopology topology) {
		topology.resetStats();
		Map<RedisProcess, String> keyPerNode = new HashMap<>();
		for (int i = 0; keyPerNode.size() < 3; i++) {
			keyPerNode.putIfAbsent(topology.nodeForKey("counter-" + i), "counter-" + i);
		}
		keyPerNode.forEach((node, key) -> {
			node.command("INCR", key);
			node.command("INCR", key);
		});
		assertThat(topology.nodes()).allSatisfy((node) -> assertThat(node.commandCalls("incr")).isEqualTo(2L));
		assertThat(topology.commandCalls()).containsEntry("incr", 6L);
		assertThat(topology.commandCalls("INCR")).isEqualTo(6L);
	}

	@Test
	void shouldStartReplicasInSyncAndFlushThemToo() {
		try (RedisClusterTopology topology = RedisClusterTopology.start(1)) {
			assertThat(topology.nodes()).hasSize(6);
			assertThat(topology.replicasPerMaster()).isEqualTo(1);
			List<RedisProcess> masters = topology.masters();
			assertThat(masters).hasSize(3);
			assertThat(topology.replicas()).hasSize(3).allSatisfy((replica) -> {
				List<?> role = (List<?>) replica.command("ROLE");
				assertThat(role.get(3)).isEqualTo("connected");
				assertThat(masters).extracting(RedisProcess::port).contains(((Long) role.get(2)).intValue());
			});
			assertThat(masters)
				.allSatisfy((master) -> assertThat(InfoFields.parse(master.command("INFO", "replication")))
					.containsEntry("connected_slaves", "1"));
			RedisProcess owner = topology.nodeForKey("replicated");
			owner.command("SET", "replicated", "value");
			assertThat(owner.command("WAIT", "1", "5000")).isEqualTo(1L);
			assertThat(topology.replicas())
				.anySatisfy((replica) -> assertThat(replica.command("DBSIZE")).isEqualTo(1L));

			topology.flushAll();

			assertThat(topology.nodes()).allSatisfy((node) -> assertThat(node.command("DBSIZE")).isEqualTo(0L));
		}
	}

	@Test
	void shouldLeaveNoProcessPortOrFileBehindOnClose() {
		RedisClusterTopology topology = RedisClusterTopology.start();
		List<RedisProcess> nodes = topology.nodes();
		List<ProcessHandle> handles = nodes.stream().map((node) -> ProcessHandle.of(node.pid()).orElseThrow()).toList();
		List<Integer> ports = new ArrayList<>();
		for (RedisProcess node : nodes) {
			ports.add(node.port());
			List<?> busPort = (List<?>) node.command("CONFIG", "GET", "cluster-port");
			// Redis 6.2 (the bundled one) has no cluster-port: its bus is the port +
			// 10000.
			ports.add(busPort.isEmpty() ? node.port() + 10000 : Integer.parseInt(String.valueOf(busPort.get(1))));
		}
		List<Path> directories = nodes.stream().map(RedisProcess::directory).toList();
		assertThat(directories).allSatisfy((directory) -> assertThat(directory.resolve("nodes.conf")).isRegularFile());

		topology.close();
		topology.close();

		assertThat(handles).noneMatch(ProcessHandle::isAlive);
		assertThat(ports).hasSize(6).doesNotHaveDuplicates().allMatch(LoopbackPorts::isFree);
		assertThat(directories).noneMatch(Files::exists);
	}

	@Test
	void shouldRejectNegativeReplicas() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisClusterTopology.start(-1))
			.withMessageContaining("-1");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisTopologyExtension.cluster(-1));
	}

}
