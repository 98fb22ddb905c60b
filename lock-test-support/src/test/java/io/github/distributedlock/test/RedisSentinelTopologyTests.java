package io.github.distributedlock.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link RedisSentinelTopology} against real {@code redis-server} processes.
 */
class RedisSentinelTopologyTests {

	@RegisterExtension
	static final RedisTopologyExtension<RedisSentinelTopology> sentinel = RedisTopologyExtension.sentinel();

	@Test
	void shouldReplicateWriteFromMasterToReplica() {
		RedisSentinelTopology topology = sentinel.topology();
		topology.master().command("SET", "greeting", "hello");
		topology.awaitReplicaInSync();
		assertThat(topology.replica().command("GET", "greeting")).isEqualTo("hello");
		assertThatExceptionOfType(RedisCommandException.class)
			.isThrownBy(() -> topology.replica().command("SET", "greeting", "bye"))
			.satisfies((ex) -> assertThat(ex.errorCode()).isEqualTo("READONLY"));
	}

	@Test
	void shouldHaveEverySentinelReportMasterReplicaAndPeers(RedisSentinelTopology topology) {
		assertThat(topology.masterName()).isEqualTo("mymaster");
		assertThat(topology.currentMaster()).isSameAs(topology.master());
		assertThat(topology.sentinels()).hasSize(3);
		assertThat(topology.sentinelAddresses()).containsExactlyElementsOf(
				topology.sentinels().stream().map((s) -> new HostAndPort("127.0.0.1", s.port())).toList());
		assertThat(topology.processes()).hasSize(5)
			.extracting(RedisProcess::port)
			.doesNotHaveDuplicates()
			.doesNotContain(6379);
		for (RedisProcess server : topology.sentinels()) {
			assertThat(InfoFields.parse(server.command("INFO", "server"))).containsEntry("redis_mode", "sentinel");
			assertThat(server.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"))
				.isEqualTo(List.of("127.0.0.1", Integer.toString(topology.master().port())));
			assertThat((List<?>) server.command("SENTINEL", "REPLICAS", "mymaster")).singleElement()
				.satisfies((replica) -> assertThat(InfoFields.ofPairs(replica)).containsEntry("port",
						Integer.toString(topology.replica().port())));
			assertThat((List<?>) server.command("SENTINEL", "SENTINELS", "mymaster")).hasSize(2);
		}
	}

	@Test
	void shouldGiveEachSentinelAConfigFileItRewrites(RedisSentinelTopology topology) throws Exception {
		List<String> ids = new ArrayList<>();
		for (RedisProcess server : topology.sentinels()) {
			String config = Files.readString(server.directory().resolve("redis.conf"));
			assertThat(config).contains("sentinel monitor mymaster 127.0.0.1 " + topology.master().port() + " 2")
				.contains("sentinel myid ");
			ids.add(config.replaceAll("(?s).*sentinel myid (\\w+).*", "$1"));
		}
		assertThat(ids).doesNotHaveDuplicates();
	}

	@Test
	void shouldPromoteReplicaOnFailover() {
		try (RedisSentinelTopology topology = RedisSentinelTopology.start("orders")) {
			RedisProcess oldMaster = topology.currentMaster();
			oldMaster.command("SET", "before", "1");
			topology.awaitReplicaInSync();

			topology.failover();

			RedisProcess newMaster = topology.currentMaster();
			assertThat(newMaster).isSameAs(topology.replica());
			assertThat(newMaster.port()).isNotEqualTo(oldMaster.port());
			assertThat(role(newMaster)).isEqualTo("master");
			for (RedisProcess server : topology.sentinels()) {
				assertThat(server.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "orders"))
					.isEqualTo(List.of("127.0.0.1", Integer.toString(newMaster.port())));
			}
			assertThat(newMaster.command("GET", "before")).isEqualTo("1");
			assertThat(newMaster.command("SET", "after", "2")).isEqualTo("OK");
			// The Sentinels make the old master a replica of the new one on their own, a
			// few seconds later.
			topology.awaitReplicaInSync();
			assertThat(role(oldMaster)).isEqualTo("slave");
			assertThat(oldMaster.command("GET", "after")).isEqualTo("2");
		}
	}

	@Test
	void shouldLeaveNoProcessPortOrFileBehindOnClose() {
		RedisSentinelTopology topology = RedisSentinelTopology.start();
		List<RedisProcess> processes = topology.processes();
		List<ProcessHandle> handles = processes.stream().map((p) -> ProcessHandle.of(p.pid()).orElseThrow()).toList();
		List<Path> directories = processes.stream().map(RedisProcess::directory).toList();
		assertThat(handles).hasSize(5).allMatch(ProcessHandle::isAlive);

		topology.close();
		topology.close();

		assertThat(handles).noneMatch(ProcessHandle::isAlive);
		assertThat(processes)
			.allSatisfy((p) -> assertThat(LoopbackPorts.isFree(p.port())).as("port %d", p.port()).isTrue());
		assertThat(directories).noneMatch(Files::exists);
		assertThatIllegalStateException().isThrownBy(topology::failover).withMessageContaining("closed");
	}

	@Test
	void shouldRejectMasterNameSentinelCannotParse() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisSentinelTopology.start("my master"))
			.withMessageContaining("'my master'");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisTopologyExtension.sentinel(""));
	}

	private static String role(RedisProcess server) {
		return String.valueOf(((List<?>) server.command("ROLE")).get(0));
	}

}
