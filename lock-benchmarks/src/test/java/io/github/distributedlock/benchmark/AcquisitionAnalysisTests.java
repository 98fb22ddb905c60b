package io.github.distributedlock.benchmark;

import java.util.List;

import io.github.distributedlock.benchmark.AcquisitionAnalysis.Handoffs;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks how {@link AcquisitionAnalysis} finds overlaps and hand-offs when a process runs
 * several threads on one key.
 */
class AcquisitionAnalysisTests {

	@Test
	void shouldCountTwoThreadsOfOneProcessHoldingAtOnceAsAnOverlap() {
		// Worker 3's threads 0 and 5 both hold key 0 from 150 to 200.
		List<Acquisition> acquisitions = List.of(new Acquisition(Acquisition.holder(3, 0), 0, 0, 100, 200, 210),
				new Acquisition(Acquisition.holder(3, 5), 0, 0, 150, 250, 260));

		assertThat(AcquisitionAnalysis.handoffs(acquisitions).overlaps()).isEqualTo(1);
	}

	@Test
	void shouldCountAHandOffBetweenThreadsOfOneProcess() {
		List<Acquisition> acquisitions = List.of(new Acquisition(Acquisition.holder(3, 0), 0, 0, 100, 200, 210),
				new Acquisition(Acquisition.holder(3, 5), 0, 0, 230, 300, 310),
				new Acquisition(Acquisition.holder(3, 5), 0, 0, 320, 400, 410));

		Handoffs handoffs = AcquisitionAnalysis.handoffs(acquisitions);

		assertThat(handoffs.overlaps()).isZero();
		assertThat(handoffs.gaps().count()).isEqualTo(1);
		assertThat(handoffs.gaps().p50Micros()).isEqualTo(0.03);
		assertThat(handoffs.share()).isEqualTo(0.5);
	}

	@Test
	void shouldCountAnOverlapWithAnEarlierHoldThatIsNotTheLatest() {
		// Thread 1 holds long; thread 2 takes and releases inside it, then thread 3 too.
		List<Acquisition> acquisitions = List.of(new Acquisition(Acquisition.holder(4, 1), 0, 0, 100, 1000, 1010),
				new Acquisition(Acquisition.holder(4, 2), 0, 0, 200, 300, 310),
				new Acquisition(Acquisition.holder(5, 3), 0, 0, 400, 500, 510));

		assertThat(AcquisitionAnalysis.handoffs(acquisitions).overlaps()).isEqualTo(2);
	}

}
