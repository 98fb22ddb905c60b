package io.github.distributedlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The interrupt of {@link LeaseLossPolicy#INTERRUPT} against the end of the section,
 * where timing decides and Redis would only add noise: a hold whose loss the test signals
 * itself. The engines' side (finding the loss) is tested against Redis in
 * {@code LeaseLossTests}.
 */
class LockedWorkTests {

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void shouldNeverInterruptAThreadThatLeftTheSectionWhenTheLossIsFoundLater() throws Exception {
		SignalledHold hold = new SignalledHold();
		assertThat(LockedWork.<String>run(hold, LeaseLossPolicy.INTERRUPT, (lock) -> "done")).isEqualTo("done");
		hold.lost.complete(null);
		// Throws InterruptedException, failing the test, if the late loss interrupts.
		Thread.sleep(300);
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		assertThat(hold.closed).hasValue(1);
	}

	@Test
	void shouldLeaveNoInterruptBehindWhenTheLossRacesTheEndOfTheSection() throws Exception {
		for (int i = 0; i < 300; i++) {
			SignalledHold hold = new SignalledHold();
			assertThat(Thread.currentThread().isInterrupted()).as("interrupted before run " + i).isFalse();
			try {
				// Either outcome is right; what matters is the interrupt status after.
				LockedWork.run(hold, LeaseLossPolicy.INTERRUPT, (lock) -> {
					CompletableFuture.runAsync(() -> hold.lost.complete(null));
					Thread.onSpinWait();
					return "done";
				});
			}
			catch (LockLeaseLostException ex) {
				assertThat(ex).hasMessageContaining("interrupted");
			}
			assertThat(Thread.currentThread().isInterrupted()).as("interrupted after run " + i).isFalse();
			hold.lost.join();
			Thread.sleep(1);
		}
	}

	@Test
	void shouldInterruptAndReportTheLossWhenTheHoldIsAlreadyLost() {
		SignalledHold hold = new SignalledHold();
		hold.lost.complete(null);
		hold.remaining = Duration.ZERO;
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> LockedWork.run(hold, LeaseLossPolicy.INTERRUPT, (lock) -> {
				try {
					Thread.sleep(5_000);
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException("interrupted", ex);
				}
				return "finished";
			}))
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement()
				.satisfies((suppressed) -> assertThat(suppressed).hasMessage("interrupted")));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void shouldLeaveAnInterruptSomeoneElseSentAlone() throws Exception {
		SignalledHold hold = new SignalledHold();
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> LockedWork.run(hold, LeaseLossPolicy.INTERRUPT, (lock) -> {
				Thread.currentThread().interrupt();
				hold.lost.complete(null);
				// Long enough for the loss to be handled on the alarm thread.
				long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
				while (System.nanoTime() - until < 0) {
					Thread.onSpinWait();
				}
				return "done";
			}));
		assertThat(Thread.interrupted()).as("the interrupt that was not ours is kept").isTrue();
	}

	@Test
	void shouldNotWatchTheHoldWhenThePolicyIsContinue() throws Exception {
		SignalledHold hold = new SignalledHold();
		String result = LockedWork.run(hold, LeaseLossPolicy.CONTINUE, (lock) -> {
			hold.lost.complete(null);
			hold.remaining = Duration.ZERO;
			try {
				Thread.sleep(300);
			}
			catch (InterruptedException ex) {
				return "interrupted";
			}
			hold.remaining = Duration.ofSeconds(1);
			return "done";
		});
		assertThat(result).isEqualTo("done");
	}

	@Test
	void shouldReturnTheResultWhenTheReleaseFailsWithinTheLeaseAndReportALostLeaseAfterIt() {
		SignalledHold hold = new SignalledHold();
		hold.releaseFailure = new LockAccessException(hold.name(), "Redis failed during release", null);
		assertThat(LockedWork.<String>run(hold, LeaseLossPolicy.CONTINUE, (lock) -> "done")).isEqualTo("done");
		hold.remaining = Duration.ZERO;
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> LockedWork.run(hold, LeaseLossPolicy.CONTINUE, (lock) -> "done"))
			.withCause(hold.releaseFailure);
	}

	@Test
	void shouldReportALostLeaseWhenAMultiLocksReleaseFailsAndFindsAnotherOfItsHoldsLost() {
		SignalledHold hold = new SignalledHold();
		LockAccessException failure = new LockAccessException(hold.name(), "Redis failed during release", null);
		failure
			.addSuppressed(new LockLeaseLostException(hold.name(), 1, "released after the lock had already expired"));
		hold.releaseFailure = failure;
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> LockedWork.run(hold, LeaseLossPolicy.CONTINUE, (lock) -> "done"))
			.withCause(failure);
	}

	/**
	 * A hold whose loss, remaining lease and release outcome the test decides.
	 */
	static final class SignalledHold implements LockHandle {

		final CompletableFuture<Void> lost = new CompletableFuture<>();

		final AtomicInteger closed = new AtomicInteger();

		volatile Duration remaining = Duration.ofSeconds(30);

		volatile LockAccessException releaseFailure;

		@Override
		public LockName name() {
			return LockName.of("signalled", "1");
		}

		@Override
		public long fencingToken() {
			return 1;
		}

		@Override
		public boolean waited() {
			return false;
		}

		@Override
		public Duration waitedFor() {
			return Duration.ZERO;
		}

		@Override
		public int attempts() {
			return 1;
		}

		@Override
		public Duration remainingLease() {
			return this.remaining;
		}

		@Override
		public boolean isHeld() {
			return !this.lost.isDone();
		}

		@Override
		public CompletionStage<Void> whenLost() {
			return this.lost;
		}

		@Override
		public void extend(Duration lease) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void close() {
			this.closed.incrementAndGet();
			LockAccessException failure = this.releaseFailure;
			if (failure != null) {
				throw failure;
			}
		}

	}

}
