package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite ({@link RedisContractSuite}) on a Sentinel group, for every wait
 * strategy.
 */
@ParameterizedClass(name = "{0} {1}", allowZeroInvocations = true)
@MethodSource("rows")
class LockContractSentinelTests extends RedisContractSuite {

	static Stream<Arguments> rows() {
		return rowsOf(EnumSet.of(ContractTopology.SENTINEL));
	}

}
