package io.github.distributedlock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.LockTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The behaviour every {@link LockTemplate} must show, through its API only: the Redis
 * engine runs it for every topology and wait strategy, and the in-memory template of
 * {@code distributed-lock-test} runs it too, so that the two cannot drift apart.
 * <p>
 * Two templates stand in for two processes sharing one store: each is its own owner, so
 * their threads are different owners, exactly as in separate JVMs. A subclass sets
 * {@link #template} and {@link #otherProcess} before the tests run, and tells where the
 * locks of a scope are left.
 *
 * @param <T> the type of template
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class LockTemplateContractTests<T extends LockTemplate> {

	protected T template;

	protected T otherProcess;

	protected ExecutorService executor;

	protected String scope;

	/**
	 * Return what is left in the store under a scope (locks, waiter lines, queues), which
	 * must be nothing once a test is over.
	 * @param scope the scope of the test that ended
	 * @return what is left
	 */
	protected abstract Collection<?> locksLeftBehind(String scope);

	/**
	 * Return how many fair waiters are lined up for a lock.
	 * @param name the lock
	 * @return the number of fair waiters
	 */
	protected abstract long fairWaiters(LockName name);

	/**
	 * Return a prefix for the scope of each test, so that suites sharing a store don't
	 * meet.
	 * @return the prefix
	 */
	protected String scopePrefix() {
		return "c";
	}

	/**
	 * Return whether {@link #commandCount()} counts the commands a waiter sends, so that
	 * tests can check a waiter does not poll.
	 * @return whether commands are counted
	 */
	protected boolean countsWakeUpCommands() {
		return false;
	}

	/**
	 * Return how many commands were sent to the store so far, when
	 * {@link #countsWakeUpCommands()}.
	 * @return the count
	 */
	protected long commandCount() {
		return 0;
	}

	@BeforeEach
	void pickScopeAndExecutor(TestInfo info) {
		this.scope = scopePrefix() + "-" + info.getTestMethod().orElseThrow().getName();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void noLockLeftBehind() {
		try {
			// Every test releases what it takes, or lets it expire within its own run.
			await().atMost(Duration.ofSeconds(3))
				.untilAsserted(() -> assertThat(locksLeftBehind(this.scope)).as("locks left behind").isEmpty());
		}
		finally {
			this.executor.shutdownNow();
		}
	}

	protected LockRequest.Builder request(String key) {
		return LockRequest.builder(this.scope).key(key);
	}

	@Test
	void shouldExcludeOtherOwners() throws Exception {
		try (LockHandle held = this.template.acquire(request("a").build())) {
			assertThat(this.template.isLocked(this.scope, "a")).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("a").waitTime(Duration.ZERO).build())).isEmpty();
			assertThat(onOtherThread(() -> this.template.tryAcquire(request("a").waitTime(Duration.ZERO).build())))
				.as("another thread of the same process is another owner")
				.isEmpty();
			assertThat(this.otherProcess.tryAcquire(request("b").waitTime(Duration.ZERO).build()))
				.hasValueSatisfying(LockHandle::close);
		}
		assertThat(this.template.isLocked(this.scope, "a")).isFalse();
	}

	@Test
	void shouldBeReentrantForTheSameThread() throws Exception {
		LockHandle outer = this.template.acquire(request("r").build());
		LockHandle inner = this.template.acquire(request("r").build());
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		assertThat(this.template.isHeldByCurrentThread(this.scope, "r")).isTrue();
		inner.close();
		assertThat(this.template.isLocked(this.scope, "r")).as("still held by the outer hold").isTrue();
		assertThat(onOtherThread(() -> this.template.tryAcquire(request("r").waitTime(Duration.ZERO).build())))
			.isEmpty();
		outer.close();
		assertThat(this.template.isLocked(this.scope, "r")).isFalse();
	}

	@Test
	void shouldFailFastOnSelfDeadlockWhenNotReentrant() {
		try (LockHandle held = this.template.acquire(request("s").build())) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockSelfDeadlockException.class)
				.isThrownBy(() -> this.template.acquire(request("s").reentrant(false).build()))
				.withMessageContaining(this.scope + ":s");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(held.isHeld()).isTrue();
		}
	}

	@Test
	void shouldExpireAndReportTheLostLeaseOnRelease() throws Exception {
		LockHandle held = this.template.acquire(request("e").lease(Duration.ofMillis(300)).build());
		Optional<LockHandle> next = this.otherProcess.tryAcquire(request("e").waitTime(Duration.ofSeconds(3)).build());
		assertThat(next).as("taken over once the lease ended").isPresent();
		assertThat(held.isHeld()).isFalse();
		assertThat(held.remainingLease()).isEqualTo(Duration.ZERO);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close)
			.withMessageContaining(this.scope + ":e")
			.withMessageContaining("overlapped");
		assertThat(next.get().isHeld()).as("the stale release did not free the new holder's lock").isTrue();
		next.get().close();
	}

	@Test
	void shouldExtendTheLease() throws Exception {
		try (LockHandle held = this.template.acquire(request("x").lease(Duration.ofMillis(300)).build())) {
			long extensionSent = System.nanoTime();
			held.extend(Duration.ofSeconds(5));
			Duration remaining = held.remainingLease();
			// Counted from before the extension was sent, however long a busy machine
			// took since.
			assertThat(remaining).isGreaterThan(Duration.ofMillis(300))
				.isGreaterThanOrEqualTo(Duration.ofSeconds(5).minus(since(extensionSent)));
			Thread.sleep(500);
			assertThat(held.isHeld()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("x").waitTime(Duration.ZERO).build())).isEmpty();
		}
	}

	@Test
	void shouldNeverShortenALeaseByExtendingIt() throws Exception {
		long acquisitionSent = System.nanoTime();
		try (LockHandle held = this.template.acquire(request("s").lease(Duration.ofSeconds(5)).build())) {
			held.extend(Duration.ofMillis(100));
			Duration remaining = held.remainingLease();
			// The lease counted from before the acquisition was sent, not the extension's
			// 100 ms, however long a busy machine took since.
			assertThat(remaining).isGreaterThan(Duration.ofMillis(100))
				.isGreaterThanOrEqualTo(Duration.ofSeconds(5).minus(since(acquisitionSent)));
			Thread.sleep(300);
			assertThat(held.isHeld()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("s").waitTime(Duration.ZERO).build())).isEmpty();
		}
	}

	@Test
	void shouldNotExtendALostLease() throws Exception {
		LockHandle held = this.template.acquire(request("x").lease(Duration.ofMillis(100)).build());
		Thread.sleep(250);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(() -> held.extend(Duration.ofSeconds(5)));
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
	}

	@Test
	void shouldHandOutStrictlyIncreasingFencingTokens() throws Exception {
		long previous = 0;
		for (int i = 0; i < 50; i++) {
			LockTemplate owner = (i % 2 == 0) ? this.template : this.otherProcess;
			try (LockHandle held = owner.acquire(request("f").build())) {
				assertThat(held.fencingToken()).isGreaterThan(previous);
				previous = held.fencingToken();
			}
		}
	}

	@Test
	void shouldTimeOutNamingTheLockTheWaitAndTheHoldersLease() throws Exception {
		try (LockHandle held = this.template.acquire(request("t").lease(Duration.ofSeconds(20)).build())) {
			long start = System.nanoTime();
			LockTimeoutException timeout = onOtherThread(() -> {
				try {
					this.otherProcess.acquire(request("t").waitTime(Duration.ofMillis(400)).build());
					return null;
				}
				catch (LockTimeoutException ex) {
					return ex;
				}
			});
			assertThat(timeout).isNotNull();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			assertThat(timeout.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			assertThat(timeout.getHolderRemainingLease()).isNotNull()
				.isGreaterThan(Duration.ofSeconds(15))
				.isLessThanOrEqualTo(Duration.ofSeconds(20));
			assertThat(timeout.getLockName()).isEqualTo(LockName.of(this.scope, "t"));
			assertThat(timeout).hasMessageContaining(this.scope + ":t").hasMessageContaining("lease");
			assertThat(held.isHeld()).isTrue();
		}
	}

	@Test
	void shouldHonourInterrupts() throws Exception {
		try (LockHandle held = this.template.acquire(request("i").build())) {
			AtomicReference<Throwable> failure = new AtomicReference<>();
			AtomicReference<Boolean> interruptFlag = new AtomicReference<>();
			CountDownLatch done = new CountDownLatch(1);
			Thread waiter = new Thread(() -> {
				try {
					this.otherProcess.acquire(request("i").waitIndefinitely().build());
				}
				catch (Throwable ex) {
					failure.set(ex);
					interruptFlag.set(Thread.currentThread().isInterrupted());
				}
				finally {
					done.countDown();
				}
			});
			waiter.start();
			Thread.sleep(300);
			waiter.interrupt();
			assertThat(done.await(3, TimeUnit.SECONDS)).as("woke on interrupt").isTrue();
			assertThat(failure.get()).isInstanceOf(LockInterruptedException.class)
				.hasMessageContaining(this.scope + ":i");
			assertThat(interruptFlag.get()).as("interrupt status restored").isTrue();
		}
	}

	@Test
	void shouldWakeAWaiterPromptlyWhenTheLockIsReleased() throws Exception {
		LockHandle held = this.template.acquire(request("w").lease(Duration.ofSeconds(10)).build());
		Future<LockContextSnapshot> waiter = this.executor.submit(() -> this.otherProcess
			.execute(request("w").waitTime(Duration.ofSeconds(9)).build(), LockContextSnapshot::of));
		Thread.sleep(200);
		long released = System.nanoTime();
		held.close();
		LockContextSnapshot context = waiter.get(9, TimeUnit.SECONDS);
		Duration afterRelease = Duration.ofNanos(System.nanoTime() - released);
		assertThat(context.waited()).isTrue();
		assertThat(context.token()).isGreaterThan(held.fencingToken());
		// Well before the 10 s lease would have ended.
		assertThat(afterRelease).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void shouldNoticeAnAbandonedLockWhenItsLeaseEndsWithoutPolling() throws Exception {
		// Never released, as if its process had died. Its lease starts when the acquire
		// script runs: after the call was sent, before its reply came back, however slow
		// the machine is between the two.
		long sentAt = System.nanoTime();
		LockHandle abandoned = this.template.acquire(request("d").lease(Duration.ofMillis(800)).build());
		long acquiredAt = System.nanoTime();
		long before = commandCount();
		try (LockHandle next = this.otherProcess.acquire(request("d").waitTime(Duration.ofSeconds(5)).build())) {
			long nextAt = System.nanoTime();
			// Redis counts the lease in whole milliseconds of its own clock.
			assertThat(Duration.ofNanos(nextAt - sentAt)).as("taken once the lease ended")
				.isGreaterThanOrEqualTo(Duration.ofMillis(798));
			assertThat(Duration.ofNanos(nextAt - acquiredAt)).isLessThan(Duration.ofMillis(2500));
			assertThat(next.waited()).isTrue();
			if (countsWakeUpCommands()) {
				// First try, try again once subscribed, and the try when the lease ended.
				assertThat(commandCount() - before).isLessThanOrEqualTo(4);
			}
		}
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(abandoned::close);
	}

	@Test
	void shouldExposeTheLockContextInsideExecute() {
		LockContextSnapshot snapshot = this.template.execute(this.scope, "c", (context) -> {
			assertThat(LockContext.current()).isSameAs(context);
			String nested = this.template.execute(this.scope, "c2", (inner) -> LockContext.current().name().key());
			assertThat(nested).isEqualTo("c2");
			assertThat(LockContext.current()).as("outer context back after the nested one").isSameAs(context);
			return LockContextSnapshot.of(context);
		});
		assertThat(snapshot.name()).isEqualTo(LockName.of(this.scope, "c"));
		assertThat(snapshot.waited()).isFalse();
		assertThat(snapshot.attempts()).isEqualTo(1);
		assertThat(snapshot.token()).isPositive();
		assertThat(snapshot.remainingLease()).isGreaterThan(Duration.ofSeconds(25));
		assertThat(snapshot.held()).isTrue();
		assertThat(LockContext.find()).isEmpty();
	}

	@Test
	void shouldKeepSectionsFromOverlappingUnderConcurrency() throws Exception {
		int threads = 8;
		int perThread = 40;
		List<Section> sections = java.util.Collections.synchronizedList(new ArrayList<>());
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			LockTemplate owner = (t % 2 == 0) ? this.template : this.otherProcess;
			int thread = t;
			workers.add(this.executor.submit(() -> {
				for (int i = 0; i < perThread; i++) {
					String key = "k" + ((thread + i) % 3);
					owner.executeWithoutResult(request(key).waitTime(Duration.ofSeconds(20)).build(), (context) -> {
						long start = System.nanoTime();
						busy(200_000);
						sections.add(new Section(key, start, System.nanoTime(), context.fencingToken()));
					});
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(sections).hasSize(threads * perThread);
		assertThat(Section.overlaps(sections)).isEmpty();
	}

	@Test
	void shouldTakeAllLocksOrNone() throws Exception {
		LockHandle blocker = this.otherProcess.acquire(request("m2").build());
		assertThatExceptionOfType(LockTimeoutException.class)
			.isThrownBy(() -> this.template.acquireAll(List.of(request("m3").waitTime(Duration.ofMillis(300)).build(),
					request("m1").build(), request("m2").build())))
			.withMessageContaining(this.scope + ":m2");
		assertThat(this.template.isLocked(this.scope, "m1")).as("rolled back").isFalse();
		assertThat(this.template.isLocked(this.scope, "m3")).as("never taken").isFalse();
		blocker.close();
		try (LockHandle all = this.template.acquireAll(
				List.of(request("m3").build(), request("m1").build(), request("m2").build(), request("m1").build()))) {
			assertThat(all.locks()).extracting((lock) -> lock.name().key()).containsExactly("m1", "m2", "m3");
			assertThat(all.isHeld()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("m3").waitTime(Duration.ZERO).build())).isEmpty();
		}
		assertThat(List.of("m1", "m2", "m3")).noneMatch((key) -> this.template.isLocked(this.scope, key));
	}

	@Test
	void shouldWakeAMultiLockWaiterPromptlyWhenTheLockThatBlocksItIsReleased() throws Exception {
		LockHandle blocker = this.otherProcess.acquire(request("mw2").lease(Duration.ofSeconds(10)).build());
		Future<LockHandle> waiter = this.executor.submit(() -> this.template
			.acquireAll(List.of(request("mw1").waitTime(Duration.ofSeconds(9)).build(), request("mw2").build())));
		Thread.sleep(200);
		long released = System.nanoTime();
		blocker.close();
		try (LockHandle all = waiter.get(9, TimeUnit.SECONDS)) {
			// Well before the 10 s lease would have ended.
			assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
			assertThat(all.isHeld()).isTrue();
		}
	}

	@Test
	void shouldNotDeadlockOnOverlappingMultiLocks() throws Exception {
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 2; t++) {
			LockTemplate owner = (t == 0) ? this.template : this.otherProcess;
			List<LockRequest> keys = (t == 0) ? List.of(request("a").build(), request("b").build())
					: List.of(request("b").build(), request("a").build());
			workers.add(this.executor.submit(() -> {
				for (int i = 0; i < 150; i++) {
					owner.executeAll(keys, (context) -> context.fencingToken());
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
	}

	@Test
	void shouldShareReadLocksAndExcludeWriters() throws Exception {
		LockHandle reader1 = this.template.acquire(request("rw").mode(LockMode.READ).build());
		LockHandle reader2 = this.otherProcess.acquire(request("rw").mode(LockMode.READ).build());
		assertThat(reader1.isHeld()).isTrue();
		assertThat(reader2.isHeld()).isTrue();
		// Writers on another thread: on this one they would be readers asking to upgrade.
		assertThat(onOtherThread(() -> this.otherProcess.tryAcquire(request("rw").waitTime(Duration.ZERO).build())))
			.as("writer")
			.isEmpty();
		reader1.close();
		assertThat(onOtherThread(
				() -> this.template.tryAcquire(request("rw").mode(LockMode.WRITE).waitTime(Duration.ZERO).build())))
			.as("a writer waits for the last reader")
			.isEmpty();
		reader2.close();
		try (LockHandle writer = this.otherProcess.acquire(request("rw").mode(LockMode.WRITE).build())) {
			assertThat(this.template.tryAcquire(request("rw").mode(LockMode.READ).waitTime(Duration.ZERO).build()))
				.as("readers wait for the writer")
				.isEmpty();
			try (LockHandle ownRead = this.otherProcess.acquire(request("rw").mode(LockMode.READ).build())) {
				assertThat(ownRead.isHeld()).as("the writer may also read").isTrue();
			}
		}
	}

	@Test
	void shouldRefuseToUpgradeAReadLock() {
		try (LockHandle reader = this.template.acquire(request("up").mode(LockMode.READ).build())) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockSelfDeadlockException.class)
				.isThrownBy(() -> this.template.acquire(request("up").mode(LockMode.WRITE).build()));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		}
	}

	@Test
	void shouldWakeTheWriterWhenTheLastReaderLeavesAndAllReadersWhenTheWriterLeaves() throws Exception {
		LockHandle reader = this.template
			.acquire(request("wake").mode(LockMode.READ).lease(Duration.ofSeconds(10)).build());
		Future<LockHandle> writer = this.executor
			.submit(() -> this.otherProcess.acquire(request("wake").mode(LockMode.WRITE)
				.lease(Duration.ofSeconds(10))
				.waitTime(Duration.ofSeconds(8))
				.build()));
		Thread.sleep(200);
		long released = System.nanoTime();
		reader.close();
		LockHandle writing = writer.get(8, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
		List<Future<LockHandle>> readers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			LockTemplate owner = (i % 2 == 0) ? this.template : this.otherProcess;
			readers.add(this.executor.submit(
					() -> owner.acquire(request("wake").mode(LockMode.READ).waitTime(Duration.ofSeconds(8)).build())));
		}
		Thread.sleep(200);
		released = System.nanoTime();
		writing.close();
		List<LockHandle> reading = new ArrayList<>();
		for (Future<LockHandle> future : readers) {
			reading.add(future.get(8, TimeUnit.SECONDS));
		}
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
		assertThat(reading).allMatch(LockHandle::isHeld);
		reading.forEach(LockHandle::close);
	}

	@Test
	void shouldNotStarveAWaitingWriter() throws Exception {
		LockHandle reader = this.template.acquire(request("starve").mode(LockMode.READ).build());
		Future<LockHandle> writer = this.executor.submit(() -> this.otherProcess
			.acquire(request("starve").mode(LockMode.WRITE).waitTime(Duration.ofSeconds(8)).build()));
		Thread.sleep(300);
		assertThat(this.otherProcess.tryAcquire(request("starve").mode(LockMode.READ).waitTime(Duration.ZERO).build()))
			.as("a new reader holds back while a writer waits")
			.isEmpty();
		reader.close();
		writer.get(5, TimeUnit.SECONDS).close();
		try (LockHandle after = this.otherProcess.acquire(request("starve").mode(LockMode.READ).build())) {
			assertThat(after.isHeld()).isTrue();
		}
	}

	@Test
	void shouldLetAReadLeaseEndOnItsOwn() throws Exception {
		LockHandle reader = this.template
			.acquire(request("rlease").mode(LockMode.READ).lease(Duration.ofMillis(400)).build());
		try (LockHandle writer = this.otherProcess
			.acquire(request("rlease").mode(LockMode.WRITE).waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(writer.waited()).isTrue();
		}
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(reader::close);
	}

	@Test
	void shouldNeverHandOutMorePermitsThanTheSemaphoreHas() throws Exception {
		java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
		java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			LockTemplate owner = (t % 2 == 0) ? this.template : this.otherProcess;
			workers.add(this.executor.submit(() -> {
				for (int i = 0; i < 15; i++) {
					owner.executeWithoutResult(request("sem").permits(3).waitTime(Duration.ofSeconds(20)).build(),
							(context) -> {
								most.accumulateAndGet(inside.incrementAndGet(), Math::max);
								busy(2_000_000);
								inside.decrementAndGet();
							});
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(most.get()).isLessThanOrEqualTo(3).isGreaterThanOrEqualTo(2);
	}

	@Test
	void shouldGiveBackThePermitsOfACrashedHolderWhenTheirLeasesEnd() throws Exception {
		for (int i = 0; i < 2; i++) {
			// Never released, as if their holders had died.
			this.template.acquire(request("crashsem").permits(2).lease(Duration.ofMillis(500)).build());
		}
		long start = System.nanoTime();
		assertThat(this.otherProcess.tryAcquire(request("crashsem").permits(2).waitTime(Duration.ZERO).build()))
			.isEmpty();
		try (LockHandle permit = this.otherProcess
			.acquire(request("crashsem").permits(2).waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(400))
				.isLessThan(Duration.ofMillis(2500));
			assertThat(permit.isHeld()).isTrue();
		}
	}

	@Test
	void shouldGrantAFairLockInArrivalOrderAcrossProcesses() throws Exception {
		LockHandle holder = this.template.acquire(request("fair").fair(true).build());
		List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			LockTemplate owner = (i % 2 == 0) ? this.otherProcess : this.template;
			int arrival = i;
			waiters.add(this.executor.submit(() -> owner.executeWithoutResult(
					request("fair").fair(true).waitTime(Duration.ofSeconds(20)).build(), (context) -> {
						order.add(arrival);
						sleep(30);
					})));
			// Each waiter is queued in Redis before the next one arrives.
			await().atMost(Duration.ofSeconds(3))
				.until(() -> fairWaiters(LockName.of(this.scope, "fair")) == arrival + 1);
		}
		holder.close();
		for (Future<?> waiter : waiters) {
			waiter.get(30, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
		assertThat(fairWaiters(LockName.of(this.scope, "fair"))).isZero();
	}

	@Test
	void shouldKeepTheLockTakenForItsMinimumHoldWithoutMakingTheReleaseWait() {
		long start = System.nanoTime();
		LockHandle held = this.template.acquire(request("min").holdAtLeast(Duration.ofSeconds(2)).build());
		long release = System.nanoTime();
		held.close();
		assertThat(Duration.ofNanos(System.nanoTime() - release)).as("the release did not wait for the minimum hold")
			.isLessThan(Duration.ofSeconds(1));
		assertThat(held.isHeld()).isFalse();
		assertThat(this.template.isLocked(this.scope, "min")).as("taken until the minimum hold has passed").isTrue();
		assertThat(this.template.tryAcquire(request("min").waitTime(Duration.ZERO).build()))
			.as("not even by its last holder")
			.isEmpty();
		try (LockHandle next = this.otherProcess.acquire(request("min").waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
	}

	@Test
	void shouldKeepTheMinimumHoldOfAnInnerHoldWhenTheOuterOneIsReleasedLast() {
		long start = System.nanoTime();
		LockHandle outer = this.template.acquire(request("min-inner").build());
		LockHandle inner = this.template.acquire(request("min-inner").holdAtLeast(Duration.ofMillis(1500)).build());
		inner.close();
		outer.close();
		assertThat(this.template.isLocked(this.scope, "min-inner")).as("taken for the inner hold's minimum").isTrue();
		try (LockHandle next = this.otherProcess
			.acquire(request("min-inner").waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
			assertThat(next.fencingToken()).isGreaterThan(outer.fencingToken());
		}
	}

	@Test
	void shouldReleaseAtOnceWhenTheMinimumHoldHasPassed() throws Exception {
		LockHandle held = this.template.acquire(request("min-passed").holdAtLeast(Duration.ofMillis(200)).build());
		sleep(400);
		held.close();
		assertThat(this.template.isLocked(this.scope, "min-passed")).isFalse();
	}

	@Test
	void shouldKeepAReadLockTakenForItsMinimumHold() {
		long start = System.nanoTime();
		LockHandle reader = this.template
			.acquire(request("min-read").mode(LockMode.READ).holdAtLeast(Duration.ofMillis(1500)).build());
		reader.close();
		assertThat(this.otherProcess.tryAcquire(request("min-read").waitTime(Duration.ZERO).build()))
			.as("a writer waits for the reader's minimum hold")
			.isEmpty();
		try (LockHandle writer = this.otherProcess
			.acquire(request("min-read").waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
		}
	}

	@Test
	void shouldKeepAPermitTakenForItsMinimumHold() {
		long start = System.nanoTime();
		LockHandle permit = this.template
			.acquire(request("min-permit").permits(1).holdAtLeast(Duration.ofMillis(1500)).build());
		permit.close();
		assertThat(this.otherProcess.tryAcquire(request("min-permit").permits(1).waitTime(Duration.ZERO).build()))
			.as("the only permit stays taken for its minimum hold")
			.isEmpty();
		try (LockHandle next = this.otherProcess
			.acquire(request("min-permit").permits(1).waitTime(Duration.ofSeconds(5)).build())) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
		}
	}

	private static Duration since(long nanoTime) {
		return Duration.ofNanos(System.nanoTime() - nanoTime);
	}

	protected <V> V onOtherThread(java.util.concurrent.Callable<V> action) throws Exception {
		return this.executor.submit(action).get(10, TimeUnit.SECONDS);
	}

	public static void busy(long nanos) {
		long end = System.nanoTime() + nanos;
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
	}

	protected static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What a callback saw of its lock context, to check after the lock is released.
	 */
	protected record LockContextSnapshot(LockName name, long token, boolean waited, int attempts,
			Duration remainingLease, boolean held) {

		public static LockContextSnapshot of(LockContext context) {
			return new LockContextSnapshot(context.name(), context.fencingToken(), context.waited(), context.attempts(),
					context.remainingLease(), context.isHeld());
		}

	}

	/**
	 * One critical section as its holder saw it: {@code System.nanoTime} at entry and
	 * exit and the fencing token.
	 */
	record Section(String key, long start, long end, long token) {

		/**
		 * Return every pair of sections of one key that overlap in time, or whose tokens
		 * do not increase in the order the sections ran.
		 */
		static List<String> overlaps(List<Section> sections) {
			List<String> problems = new ArrayList<>();
			Map<String, List<Section>> byKey = sections.stream().collect(Collectors.groupingBy(Section::key));
			byKey.forEach((key, list) -> {
				List<Section> sorted = new ArrayList<>(list);
				sorted.sort(Comparator.comparingLong(Section::start));
				for (int i = 1; i < sorted.size(); i++) {
					Section previous = sorted.get(i - 1);
					Section current = sorted.get(i);
					if (current.start() < previous.end()) {
						problems.add("overlap on " + key + ": " + previous + " and " + current);
					}
					if (current.token() <= previous.token()) {
						problems.add("token not increasing on " + key + ": " + previous + " then " + current);
					}
				}
			});
			return problems;
		}

	}

}
