package io.github.distributedlock.benchmark;

import java.util.List;

import io.github.distributedlock.benchmark.AcquisitionAnalysis.Handoffs;
import io.github.distributedlock.benchmark.report.LatencyStats;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks how {@link AcquisitionAnalysis} finds overlaps, hand-offs, local successions and
 * remote waits when processes run several threads on one key.
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

	@Test
	void shouldShareOutLocalSuccessionsAndTakeTheLongestRemoteWait() {
		// Key 0 goes worker 1 → 2 (remote, waited 250) → 2 (local, waited 440) → 1
		// (remote, waited 3980) → 1 (local, waited 8780), given out of order; the
		// acquisition of a unique key is no succession of anything.
		List<Acquisition> acquisitions = List.of(new Acquisition(Acquisition.holder(1, 1), 0, 20, 4000, 4100, 4110),
				new Acquisition(Acquisition.holder(1, 0), 0, 0, 100, 200, 210),
				new Acquisition(Acquisition.holder(2, 1), 0, 60, 500, 600, 610),
				new Acquisition(Acquisition.holder(3, 0), Acquisition.UNIQUE_KEY, 0, 50_000, 50_100, 50_110),
				new Acquisition(Acquisition.holder(1, 0), 0, 220, 9000, 9100, 9110),
				new Acquisition(Acquisition.holder(2, 0), 0, 50, 300, 400, 410));

		Handoffs handoffs = AcquisitionAnalysis.handoffs(acquisitions);

		assertThat(handoffs.overlaps()).isZero();
		assertThat(handoffs.localShare()).isEqualTo(0.5);
		// The local succession's 8780 ns wait is the longest, but no remote wait.
		assertThat(handoffs.remoteWait()).isEqualTo(new LatencyStats(2, 0.25, 3.98, 3.98));
	}

	@Test
	void shouldKeepEverySuccessionLocalInOneProcess() {
		List<Acquisition> acquisitions = List.of(new Acquisition(Acquisition.holder(0, 0), 0, 0, 100, 200, 210),
				new Acquisition(Acquisition.holder(0, 7), 0, 10, 300, 400, 410),
				new Acquisition(Acquisition.holder(0, 7), 0, 410, 500, 600, 610),
				new Acquisition(Acquisition.holder(0, 15), 0, 20, 700, 800, 810));

		Handoffs handoffs = AcquisitionAnalysis.handoffs(acquisitions);

		assertThat(handoffs.localShare()).isEqualTo(1.0);
		assertThat(handoffs.remoteWait()).isEqualTo(LatencyStats.NONE);
		assertThat(handoffs.share()).isEqualTo(2.0 / 3);
	}

	@Test
	void shouldLeaveTheLocalShareUnknownWithoutSuccessions() {
		Handoffs handoffs = AcquisitionAnalysis
			.handoffs(List.of(new Acquisition(Acquisition.holder(0, 0), 0, 0, 100, 200, 210)));

		assertThat(handoffs.localShare()).isNaN();
		assertThat(handoffs.remoteWait().count()).isZero();
	}

}
