package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite ({@link RedisContractSuite}) on the other servers: Redis 6.2 and
 * Valkey.
 */
@ParameterizedClass(name = "{0} {1}", allowZeroInvocations = true)
@MethodSource("rows")
class LockContractOtherServersTests extends RedisContractSuite {

	static Stream<Arguments> rows() {
		return rowsOf(EnumSet.of(ContractTopology.REDIS_6_2, ContractTopology.VALKEY_8_0));
	}

}
