package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite ({@link RedisContractSuite}) on standalone Redis, for every wait
 * strategy. Each topology's rows are a class of their own, so that they run in test JVMs
 * side by side.
 */
@ParameterizedClass(name = "{0} {1}", allowZeroInvocations = true)
@MethodSource("rows")
class LockContractTests extends RedisContractSuite {

	static Stream<Arguments> rows() {
		return rowsOf(EnumSet.of(ContractTopology.STANDALONE));
	}

}
