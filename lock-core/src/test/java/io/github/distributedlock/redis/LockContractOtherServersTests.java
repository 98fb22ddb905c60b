package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite ({@link RedisContractSuite}) on the rows that
 * {@link LockContractTests} leaves out: Redis Cluster, Jedis, Redis 6.2 and Valkey. A
 * class of its own, so that it runs in another test JVM than those.
 */
@ParameterizedClass(name = "{0} {1}", allowZeroInvocations = true)
@MethodSource("rows")
class LockContractOtherServersTests extends RedisContractSuite {

	static Stream<Arguments> rows() {
		return rowsOf(EnumSet.complementOf(EnumSet.of(ContractTopology.STANDALONE, ContractTopology.SENTINEL)));
	}

}
