package io.github.distributedlock.test;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that gives a test class its own {@link RedisTopology}, started
 * before all its tests and closed after them.
 * <p>
 * Register it on a static field, for example
 * {@code @RegisterExtension static RedisTopologyExtension<RedisSentinelTopology> sentinel =
 * RedisTopologyExtension.sentinel();}, then call {@link #topology()} from tests and
 * {@code @BeforeAll} methods or declare a parameter of the topology's type. Nested
 * classes share the topology of the class that registered it. Tests may stop, kill or
 * fail over its processes; the next test class starts from a fresh topology.
 *
 * @param <T> the type of topology
 */
public final class RedisTopologyExtension<T extends RedisTopology>
		implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

	private final Class<T> type;

	private final Supplier<T> starter;

	private volatile @Nullable T topology;

	private volatile @Nullable String owner;

	private RedisTopologyExtension(Class<T> type, Supplier<T> starter) {
		this.type = type;
		this.starter = starter;
	}

	/**
	 * Create an extension that starts a {@link RedisSentinelTopology} monitoring the
	 * master as {@value RedisSentinelTopology#DEFAULT_MASTER_NAME}.
	 * @return the extension
	 */
	public static RedisTopologyExtension<RedisSentinelTopology> sentinel() {
		return sentinel(RedisSentinelTopology.DEFAULT_MASTER_NAME);
	}

	/**
	 * Create an extension that starts a {@link RedisSentinelTopology} monitoring the
	 * master under a name.
	 * @param masterName the master name
	 * @return the extension
	 * @throws IllegalArgumentException if the name is not one
	 * {@link RedisSentinelTopology#start(String)} accepts
	 */
	public static RedisTopologyExtension<RedisSentinelTopology> sentinel(String masterName) {
		RedisSentinelTopology.requireValidMasterName(masterName);
		return new RedisTopologyExtension<>(RedisSentinelTopology.class, () -> RedisSentinelTopology.start(masterName));
	}

	/**
	 * Create an extension that starts a {@link RedisClusterTopology} of three masters
	 * without replicas.
	 * @return the extension
	 */
	public static RedisTopologyExtension<RedisClusterTopology> cluster() {
		return cluster(0);
	}

	/**
	 * Create an extension that starts a {@link RedisClusterTopology} of three masters
	 * with replicas.
	 * @param replicasPerMaster the number of replicas of each master, zero or more
	 * @return the extension
	 * @throws IllegalArgumentException if the number is negative
	 */
	public static RedisTopologyExtension<RedisClusterTopology> cluster(int replicasPerMaster) {
		RedisClusterTopology.requireValidReplicas(replicasPerMaster);
		return new RedisTopologyExtension<>(RedisClusterTopology.class,
				() -> RedisClusterTopology.start(replicasPerMaster));
	}

	/**
	 * Return the topology of the running test class.
	 * @return the topology
	 * @throws IllegalStateException outside the test class's lifecycle, or when the
	 * extension is not registered in a static field
	 */
	public T topology() {
		T current = this.topology;
		if (current == null) {
			throw new IllegalStateException("No Redis topology yet: register RedisTopologyExtension with "
					+ "@RegisterExtension on a static field and use topology() from tests or @BeforeAll methods");
		}
		return current;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		// Nested classes inherit the extension and reuse the topology of the class that
		// registered it.
		if (this.topology == null) {
			this.topology = this.starter.get();
			this.owner = context.getUniqueId();
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (context.getUniqueId().equals(this.owner)) {
			T current = this.topology;
			this.topology = null;
			this.owner = null;
			if (current != null) {
				current.close();
			}
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == this.type;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return topology();
	}

}
