package io.github.distributedlock.benchmark;

import java.nio.file.Path;
import java.util.Set;

import io.github.distributedlock.benchmark.report.ContendedShape;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Checks which libraries scenario 2 runs, in which order and with which shapes.
 */
class ContendedScenarioTests {

	private static final BenchmarkSettings SETTINGS = BenchmarkSettings.smoke(Path.of("target/unused"));

	@Test
	void shouldRunTheFloorsFirstAndTheReactiveTemplateAfterTheBlockingOne() {
		assertThat(ContendedScenario.libraries(SETTINGS)).containsExactly(Library.FLOOR, Library.FENCED_FLOOR,
				Library.ENGINE_FLOOR, Library.THIS_PROJECT, Library.THIS_PROJECT_STRICT, Library.THIS_PROJECT_REACTIVE,
				Library.REDISSON, Library.SPRING_INTEGRATION);
	}

	@Test
	void shouldRunTheLibrariesInReverseWhenAsked() {
		assertThat(ContendedScenario.libraries(SETTINGS.reverse())).containsExactly(Library.SPRING_INTEGRATION,
				Library.REDISSON, Library.THIS_PROJECT_REACTIVE, Library.THIS_PROJECT_STRICT, Library.THIS_PROJECT,
				Library.ENGINE_FLOOR, Library.FENCED_FLOOR, Library.FLOOR);
	}

	@Test
	void shouldMeasureEveryShapeUpToOneProcessOfSixteenThreads() {
		assertThat(ContendedShape.ALL).containsExactly(ContendedShape.TWO_PROCESSES, ContendedShape.FOUR_PROCESSES,
				ContendedShape.TWO_PROCESSES_EIGHT_THREADS, ContendedShape.ONE_PROCESS_SIXTEEN_THREADS);
		assertThat(ContendedShape.ONE_PROCESS_SIXTEEN_THREADS.describe()).isEqualTo("1 process × 16 threads");
		assertThat(ContendedShape.ONE_PROCESS_SIXTEEN_THREADS.label()).isEqualTo("1×16");
		for (Library library : Library.contended()) {
			if (library != Library.THIS_PROJECT_REACTIVE && library != Library.ENGINE_FLOOR) {
				assertThat(ContendedScenario.shapes(library)).as(library.title()).isEqualTo(ContendedShape.ALL);
			}
		}
	}

	@Test
	void shouldMeasureTheReactiveTemplateWithTwoProcessesOnly() {
		assertThat(ContendedScenario.shapes(Library.THIS_PROJECT_REACTIVE))
			.containsExactly(ContendedShape.TWO_PROCESSES, ContendedShape.TWO_PROCESSES_EIGHT_THREADS);
		assertThat(ContendedScenario.shapes(Library.REDISSON)).isEqualTo(ContendedShape.ALL);
	}

	@Test
	void shouldMeasureTheEngineFloorWithProcessesOfOneThreadOnly() {
		assertThat(ContendedScenario.shapes(Library.ENGINE_FLOOR)).containsExactly(ContendedShape.TWO_PROCESSES,
				ContendedShape.FOUR_PROCESSES);
	}

	@Test
	void shouldRefuseANameThatIsNoLibraryOrShapeOfScenarioTwo() {
		assertThatIllegalArgumentException().isThrownBy(() -> SETTINGS.contended(Set.of("shedlock")))
			.withMessageContaining("'shedlock'")
			.withMessageContaining("engine-floor");
		assertThat(ContendedScenario.libraries(SETTINGS.contended(Set.of("fenced-floor"))))
			.containsExactly(Library.FENCED_FLOOR);
	}

}
