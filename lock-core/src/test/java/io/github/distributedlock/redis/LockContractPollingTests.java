package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.stream.Stream;

import io.github.distributedlock.WaitStrategy;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite ({@link RedisContractSuite}) on standalone Redis, polling.
 */
@ParameterizedClass(name = "{0} {1}", allowZeroInvocations = true)
@MethodSource("rows")
class LockContractPollingTests extends RedisContractSuite {

	static Stream<Arguments> rows() {
		return rowsOf(EnumSet.of(ContractTopology.STANDALONE)).filter((row) -> row.get()[1] == WaitStrategy.POLLING);
	}

}
