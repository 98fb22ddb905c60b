package io.github.distributedlock.inmemory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LeaseLossPolicy;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the in-memory template does beyond the contract suite: the minimum hold, custom
 * owners and listeners.
 */
class InMemoryLockTemplateTests {

	private final InMemoryLockTemplate template = new InMemoryLockTemplate();

	private final InMemoryLockTemplate otherProcess = this.template.anotherProcess();

	@Test
	void shouldKeepTheLockTakenUntilTheMinimumHoldWithoutMakingTheReleaseWait() throws Exception {
		LockRequest request = LockRequest.builder("job").holdAtLeast(Duration.ofSeconds(2)).build();
		// Read before the acquisition: the minimum hold counts from inside it, so a
		// reading after it returns may be up to a scheduling delay late.
		long acquired = System.nanoTime();
		LockHandle held = this.template.acquire(request);
		held.close();
		assertThat(Duration.ofNanos(System.nanoTime() - acquired)).as("the release did not wait for the minimum hold")
			.isLessThan(Duration.ofSeconds(1));
		assertThat(held.isHeld()).isFalse();
		assertThat(this.template.isLocked("job", null)).as("taken until the minimum hold passed").isTrue();
		assertThat(this.template.tryAcquire(LockRequest.builder("job").waitTime(Duration.ZERO).build()))
			.as("not even by its last holder")
			.isEmpty();
		try (LockHandle next = this.otherProcess
			.acquire(LockRequest.builder("job").waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - acquired)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
			assertThat(next.fencingToken()).as("the next holder's token").isGreaterThan(held.fencingToken());
		}
	}

	@Test
	void shouldFreeTheLockAtOnceWhenTheWorkOutlastedTheMinimumHold() throws Exception {
		LockHandle held = this.template.acquire(LockRequest.builder("job").holdAtLeast(Duration.ofMillis(50)).build());
		Thread.sleep(100);
		held.close();
		assertThat(this.template.isLocked("job", null)).isFalse();
	}

	@Test
	void shouldKeepTheMinimumHoldAfterAnExtensionThatAsksForLess() {
		// An extension never shortens a lease (it used to, and then capped the minimum
		// hold): the lock stays taken for its minimum hold.
		LockHandle held = this.template.acquire(
				LockRequest.builder("job").lease(Duration.ofMillis(400)).holdAtLeast(Duration.ofMillis(400)).build());
		long start = System.nanoTime();
		held.extend(Duration.ofMillis(50));
		held.close();
		try (LockHandle next = this.otherProcess
			.acquire(LockRequest.builder("job").waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("kept for its minimum hold")
				.isGreaterThan(Duration.ofMillis(300))
				.isLessThan(Duration.ofSeconds(5));
			assertThat(next.isHeld()).isTrue();
		}
	}

	@Test
	void shouldApplyTheLatestMinimumHoldOfAReenteredLockOnceTheLastHoldIsReleased() {
		LockHandle outer = this.template.acquire(LockRequest.builder("job").build());
		LockHandle inner = this.template.acquire(LockRequest.builder("job").holdAtLeast(Duration.ofSeconds(2)).build());
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		inner.close();
		assertThat(outer.isHeld()).as("still held by the outer hold").isTrue();
		outer.close();
		assertThat(this.template.isLocked("job", null)).as("the inner minimum hold still runs").isTrue();
		assertThat(this.otherProcess.tryAcquire(LockRequest.builder("job").waitTime(Duration.ofSeconds(5)).build()))
			.hasValueSatisfying(LockHandle::close);
	}

	@Test
	void shouldKeepAReadLockFromWritersUntilItsMinimumHold() {
		LockHandle reader = this.template
			.acquire(LockRequest.builder("doc").mode(LockMode.READ).holdAtLeast(Duration.ofSeconds(2)).build());
		reader.close();
		assertThat(this.otherProcess.tryAcquire(LockRequest.builder("doc").waitTime(Duration.ZERO).build())).isEmpty();
		assertThat(this.otherProcess
			.tryAcquire(LockRequest.builder("doc").mode(LockMode.READ).waitTime(Duration.ZERO).build()))
			.as("readers still share it")
			.hasValueSatisfying(LockHandle::close);
		assertThat(this.otherProcess.tryAcquire(LockRequest.builder("doc").waitTime(Duration.ofSeconds(5)).build()))
			.hasValueSatisfying(LockHandle::close);
	}

	@Test
	void shouldKeepAPermitTakenUntilItsMinimumHold() {
		LockRequest permit = LockRequest.builder("exports").permits(1).holdAtLeast(Duration.ofSeconds(2)).build();
		this.template.acquire(permit).close();
		assertThat(this.otherProcess.tryAcquire(permit.toBuilder().waitTime(Duration.ZERO).build())).isEmpty();
		assertThat(this.otherProcess.tryAcquire(permit.toBuilder().waitTime(Duration.ofSeconds(5)).build()))
			.hasValueSatisfying(LockHandle::close);
	}

	@Test
	void shouldLetACustomOwnerReleaseFromAnotherThreadAndProcess() throws Exception {
		LockHandle held = this.template.acquire(LockRequest.builder("job").key("42").owner("job-42").build());
		assertThat(this.otherProcess.findHeld(LockName.of("job", "42"), "job-41")).isEmpty();
		long token = CompletableFuture.supplyAsync(() -> {
			LockHandle other = this.otherProcess.findHeld(LockName.of("job", "42"), "job-42").orElseThrow();
			other.close();
			return other.fencingToken();
		}).get(5, TimeUnit.SECONDS);
		assertThat(token).isEqualTo(held.fencingToken());
		assertThat(this.template.isLocked("job", "42")).isFalse();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
	}

	@Test
	void shouldInterruptTheWorkWhenAnExplicitLeaseRunsOutUnderTheInterruptPolicy() {
		LockRequest request = LockRequest.builder("job")
			.lease(Duration.ofMillis(300))
			.onLeaseLost(LeaseLossPolicy.INTERRUPT)
			.build();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockLeaseLostException.class)
			.isThrownBy(() -> this.template.execute(request, (lock) -> sleep(Duration.ofSeconds(10))))
			.satisfies((ex) -> assertThat(ex.getSuppressed())
				.anySatisfy((suppressed) -> assertThat(suppressed).isInstanceOf(IllegalStateException.class)
					.hasMessage("interrupted")));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300))
			.isLessThan(Duration.ofSeconds(5));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		assertThat(this.template.isLocked("job", null)).isFalse();
	}

	@Test
	void shouldNeverInterruptWorkUnderALockTheWatchdogWouldRenew() {
		InMemoryLockTemplate shortLeases = InMemoryLockTemplate.builder()
			.defaults(LockDefaults.STANDARD.withLease(Duration.ofMillis(100)))
			.build();
		LockRequest request = LockRequest.builder("job").onLeaseLost(LeaseLossPolicy.INTERRUPT).build();
		assertThat(shortLeases.<String>execute(request, (lock) -> sleep(Duration.ofMillis(500)))).isEqualTo("slept");
	}

	private static String sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
			return "slept";
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("interrupted", ex);
		}
	}

	@Test
	void shouldTellListenersAboutAcquisitionsTimeoutsReleasesAndLostLeases() throws Exception {
		List<String> events = new CopyOnWriteArrayList<>();
		InMemoryLockTemplate listened = InMemoryLockTemplate.builder().listener(new LockListener() {

			@Override
			public void acquired(LockContext context) {
				events.add("acquired " + context.name());
			}

			@Override
			public void notAcquired(LockName name, Duration waited) {
				events.add("notAcquired " + name);
			}

			@Override
			public void released(LockContext context, Duration heldFor) {
				events.add("released " + context.name());
			}

			@Override
			public void leaseLost(LockContext context) {
				events.add("leaseLost " + context.name());
			}

		}).build();
		try (LockHandle held = listened.acquire(LockRequest.of("a", null))) {
			assertThat(listened.anotherProcess().tryAcquire(LockRequest.builder("a").waitTime(Duration.ZERO).build()))
				.isEmpty();
		}
		LockHandle expiring = listened.acquire(LockRequest.builder("b").lease(Duration.ofMillis(50)).build());
		Thread.sleep(100);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(expiring::close);
		assertThat(events).containsExactly("acquired a", "notAcquired a", "released a", "acquired b", "leaseLost b");
	}

	/**
	 * An extension that finds the hold gone because another thread closed the handle
	 * meanwhile reports no lost lease: the extending thread is held at the store's
	 * monitor, after its check that the handle is open, while the close runs.
	 */
	@Test
	void shouldReportNoLostLeaseWhenTheHandleIsClosedDuringAnExtension() throws Exception {
		List<String> lost = new CopyOnWriteArrayList<>();
		InMemoryLockTemplate listened = InMemoryLockTemplate.builder().listener(new LockListener() {

			@Override
			public void leaseLost(LockContext context) {
				lost.add(context.name().toString());
			}

		}).build();
		LockHandle held = listened.acquire(LockRequest.builder("job").lease(Duration.ofSeconds(30)).build());
		CompletableFuture<Throwable> extended;
		listened.monitor().lock();
		try {
			extended = CompletableFuture.supplyAsync(() -> {
				try {
					held.extend(Duration.ofSeconds(60));
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			while (!listened.monitor().hasQueuedThreads() && System.nanoTime() - end < 0) {
				Thread.sleep(1);
			}
			assertThat(listened.monitor().hasQueuedThreads()).as("the extension, at the monitor").isTrue();
			held.close();
		}
		finally {
			listened.monitor().unlock();
		}
		assertThat(extended.get(5, TimeUnit.SECONDS)).isInstanceOfSatisfying(LockLeaseLostException.class,
				(ex) -> assertThat(ex.getMessage()).contains("extended after it was released"));
		assertThat(lost).as("leases reported lost").isEmpty();
	}

}
