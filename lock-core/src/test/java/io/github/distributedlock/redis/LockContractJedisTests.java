package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite ({@link RedisContractSuite}) through Jedis, the other client.
 */
@ParameterizedClass(name = "{0} {1}", allowZeroInvocations = true)
@MethodSource("rows")
class LockContractJedisTests extends RedisContractSuite {

	static Stream<Arguments> rows() {
		return rowsOf(EnumSet.of(ContractTopology.STANDALONE_JEDIS));
	}

}
