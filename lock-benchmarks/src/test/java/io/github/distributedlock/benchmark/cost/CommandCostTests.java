package io.github.distributedlock.benchmark.cost;

import java.util.List;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every phase of {@link CommandCostMain} briefly against a real redis-server, so
 * that the count keeps working and keeps counting everything: MONITOR must account for
 * every command {@code INFO commandstats} counted, and every script call must be named.
 */
class CommandCostTests {

	private static final int ACQUISITIONS = 40;

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldTraceEveryCommandOfEveryPhase() {
		List<PhaseCost> phases = CommandCostMain.measure(redis.server(), ACQUISITIONS, 10);

		assertThat(phases).hasSize(CommandCostMain.PHASES.size()).allSatisfy((phase) -> {
			for (CostWorkload.Outcome outcome : List.of(phase.outcome(), phase.unwatchedOutcome())) {
				assertThat(outcome.acquisitions()).as(phase.name()).isEqualTo(ACQUISITIONS);
				assertThat(outcome.overlaps()).as(phase.name()).isZero();
				assertThat(outcome.tokenRegressions()).as(phase.name()).isZero();
			}
			assertThat(phase.untraced()).as(phase.name()).isEmpty();
			assertThat(phase.traced().scripts().keySet()).as(phase.name())
				.allSatisfy((script) -> assertThat(script).endsWith(".lua"));
			// Every hold is released by release.lua.
			long releases = phase.traced().scripts().get("release.lua").runs();
			assertThat(releases).as(phase.name()).isEqualTo(ACQUISITIONS);
		});
		PhaseCost uncontended = phases.get(0);
		// One acquire and one release per acquisition, and nothing else sent: as
		// functions where the server has them, else as scripts (Redis 6.2).
		String scriptCall = redis.server().hasFunctions() ? "fcall" : "evalsha";
		assertThat(uncontended.traced().sent()).as("Redis %s", redis.server().redisVersion())
			.containsOnlyKeys(scriptCall);
		assertThat(uncontended.roundTrips()).isEqualTo(2.0);
		assertThat(uncontended.traced().scripts().get("acquire.lua").runs()).isEqualTo(ACQUISITIONS);
		assertThat(uncontended.left().keys()).containsOnlyKeys("fence");
	}

}
