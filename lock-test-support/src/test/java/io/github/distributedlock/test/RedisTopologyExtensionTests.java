package io.github.distributedlock.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Tests for {@link RedisTopologyExtension}, running a fixture class in a separate JUnit
 * engine run so that the closing of its topology can be observed.
 */
class RedisTopologyExtensionTests {

	static final List<RedisTopology> topologies = new CopyOnWriteArrayList<>();

	static final List<ProcessHandle> handles = new CopyOnWriteArrayList<>();

	@Test
	void shouldStartTopologyBeforeAllAndCloseItAfterAll() {
		topologies.clear();
		handles.clear();
		LauncherDiscoveryRequest request = request().selectors(selectClass(ClusterUser.class)).build();
		Launcher launcher = LauncherFactory.create();
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		launcher.execute(request, listener);
		TestExecutionSummary summary = listener.getSummary();
		summary.getFailures().forEach((failure) -> failure.getException().printStackTrace());
		assertThat(summary.getTotalFailureCount()).isZero();
		assertThat(summary.getTestsSucceededCount()).isEqualTo(2);

		assertThat(topologies).hasSize(3).allSatisfy((topology) -> assertThat(topology).isSameAs(topologies.get(0)));
		assertThat(handles).hasSize(3).noneMatch(ProcessHandle::isAlive);
		assertThat(topologies.get(0).processes()).hasSize(3).allSatisfy((process) -> {
			assertThat(process.isRunning()).isFalse();
			assertThat(LoopbackPorts.isFree(process.port())).isTrue();
		});
	}

	@Test
	void shouldExplainTopologyOutsideLifecycle() {
		RedisTopologyExtension<RedisClusterTopology> extension = RedisTopologyExtension.cluster();
		assertThatIllegalStateException().isThrownBy(extension::topology).withMessageContaining("@RegisterExtension");
	}

	static class ClusterUser {

		@RegisterExtension
		static final RedisTopologyExtension<RedisClusterTopology> cluster = RedisTopologyExtension.cluster();

		@BeforeAll
		static void record() {
			topologies.add(cluster.topology());
			cluster.topology().processes().forEach((p) -> handles.add(ProcessHandle.of(p.pid()).orElseThrow()));
		}

		@Test
		void injected(RedisClusterTopology topology) {
			topologies.add(topology);
			assertThat(topology.masters()).hasSize(3);
		}

		@Nested
		class Inner {

			@Test
			void sameTopology(RedisClusterTopology topology) {
				topologies.add(topology);
			}

		}

	}

}
