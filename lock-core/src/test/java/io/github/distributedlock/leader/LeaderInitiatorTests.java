package io.github.distributedlock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.distributedlock.LeaseLossPolicy;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.redis.RedisConnections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The safety of leader election against a real redis-server: one leader at a time, tokens
 * that grow from term to term, a revocation before the lease can end, leadership taken
 * again when Redis returns, and leader-only methods that run only in a live term. Each
 * instance has a template and connections of its own, as a process would. Leases are 1.5
 * s, renewed every 500 ms and revoked 400 ms before their end.
 */
class LeaderInitiatorTests {

	private static final Duration LEASE = Duration.ofMillis(1500);

	private static final Duration MARGIN = Duration.ofMillis(400);

	private static final LeaderTimings TIMINGS = new LeaderTimings(LEASE, MARGIN, Duration.ofMillis(200),
			Duration.ofMillis(200));

	private static final Duration BLOCK = Duration.ofSeconds(20);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final List<Instance> instances = new ArrayList<>();

	private final List<Recorded> events = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopInstances() {
		ManagedRedisServer server = redis.managedServer();
		if (!server.isRunning()) {
			server.start();
		}
		server.resume();
		this.instances.forEach(Instance::close);
		server.command("FLUSHALL");
		Thread.interrupted();
	}

	@Test
	void shouldKeepOneLeaderAtATimeWithGrowingTokensAcrossHandOvers() {
		List<Instance> all = List.of(start("a", "exclusion"), start("b", "exclusion"), start("c", "exclusion"));
		long lastToken = 0;
		for (int handOver = 0; handOver < 6; handOver++) {
			long previous = lastToken;
			Instance leader = await().atMost(BLOCK).until(() -> leaderOf(all, previous), (found) -> found != null);
			lastToken = leader.initiator().getContext().orElseThrow().fencingToken();
			leader.initiator().yieldLeadership();
		}
		all.forEach(Instance::close);
		List<Term> terms = terms();
		assertThat(terms).hasSizeGreaterThanOrEqualTo(6);
		for (int i = 1; i < terms.size(); i++) {
			Term before = terms.get(i - 1);
			Term after = terms.get(i);
			assertThat(before.revokedAt()).as("%s revoked before %s was granted", before, after)
				.isLessThan(after.grantedAt());
			assertThat(after.token()).as("token of %s after %s", after, before).isGreaterThan(before.token());
		}
		assertThat(terms).extracting(Term::instance).contains("a", "b", "c");
	}

	@Test
	void shouldHandOverWithinOneLeaseWhenTheLeaderStops() {
		List<Instance> both = List.of(start("a", "stop"), start("b", "stop"));
		Instance leader = await().atMost(BLOCK).until(() -> leaderOf(both, 0), (found) -> found != null);
		Instance follower = (leader == both.get(0)) ? both.get(1) : both.get(0);
		long stopped = System.nanoTime();
		leader.initiator().stop();
		// A release wakes the follower: waiting out the lease would take longer.
		await().atMost(BLOCK).until(follower.initiator()::isLeader);
		assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(LEASE);
		Recorded revoked = find(OnRevokedEvent.class, leader.id(), stopped).orElseThrow();
		assertThat(((OnRevokedEvent) revoked.event()).getReason()).isEqualTo(RevokeReason.STOPPED);
		assertThat(revoked.nanos())
			.isLessThan(find(OnGrantedEvent.class, follower.id(), stopped).orElseThrow().nanos());
	}

	@Test
	void shouldRevokeAMarginBeforeTheLeaseEndsWhileRedisStallsAndLeadAgainAfter() {
		Instance only = start("a", "stall");
		await().atMost(BLOCK).until(only.initiator()::isLeader);
		long paused = System.nanoTime();
		redis.managedServer().pause();
		Recorded revoked = await().atMost(BLOCK)
			.until(() -> find(OnRevokedEvent.class, "a", paused), Optional::isPresent)
			.orElseThrow();
		redis.managedServer().resume();
		assertThat(((OnRevokedEvent) revoked.event()).getReason()).isEqualTo(RevokeReason.EXPIRING);
		// Counted from the last renewal's send: Redis keeps the lock at least this long.
		assertThat(revoked.remainingLease()).isPositive().isLessThanOrEqualTo(MARGIN);
		assertThat(revoked.wasLeader()).isFalse();
		await().atMost(BLOCK).until(only.initiator()::isLeader);
		assertThat(only.initiator().getContext().orElseThrow().fencingToken())
			.isGreaterThan(revoked.event().getFencingToken());
	}

	@Test
	void shouldTakeLeadershipAgainWhenRedisComesBack() {
		Instance only = start("a", "restart");
		await().atMost(BLOCK).until(only.initiator()::isLeader);
		long stopped = System.nanoTime();
		redis.managedServer().stop();
		long token = await().atMost(BLOCK)
			.until(() -> find(OnRevokedEvent.class, "a", stopped), Optional::isPresent)
			.orElseThrow()
			.event()
			.getFencingToken();
		assertThat(only.initiator().isLeader()).isFalse();
		// Several failed attempts before Redis returns.
		sleep(TIMINGS.retryInterval().multipliedBy(3));
		redis.managedServer().start();
		await().atMost(BLOCK).until(only.initiator()::isLeader);
		assertThat(only.initiator().getContext().orElseThrow().fencingToken()).isGreaterThan(token);
	}

	@Test
	void shouldRunLeaderOnlyMethodsOnTheLeaderAlone() {
		Instance a = start("a", "job");
		Instance b = start("b", "job");
		Instance leader = await().atMost(BLOCK).until(() -> leaderOf(List.of(a, b), 0), (found) -> found != null);
		Jobs onA = new Jobs();
		Jobs onB = new Jobs();
		Optional<Long> fromA = jobs(a, onA).token();
		Optional<Long> fromB = jobs(b, onB).token();
		long token = leader.initiator().getContext().orElseThrow().fencingToken();
		assertThat((leader == a) ? fromA : fromB).contains(token);
		assertThat((leader == a) ? fromB : fromA).isEmpty();
		assertThat(onA.runs.get() + onB.runs.get()).isOne();
		assertThat(LeaderContext.find()).isEmpty();
	}

	@Test
	void shouldInterruptALeaderOnlyMethodWhenTheLockIsLost() throws Exception {
		Instance only = start("a", "lost");
		await().atMost(BLOCK).until(only.initiator()::isLeader);
		Jobs jobs = new Jobs();
		Jobs proxy = jobs(only, jobs);
		CompletableFuture<Void> running = CompletableFuture.runAsync(proxy::blockInterruptibly);
		assertThat(jobs.entered.await(BLOCK.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		RedisLockTemplate template = only.template();
		redis.server().command("DEL", template.lockKey(LockName.of(LeaderInitiator.LOCK_SCOPE, "lost")));
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> running.get(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS))
			.withRootCauseInstanceOf(InterruptedException.class);
		// Published right after the interrupt, which the call may have answered first.
		await().atMost(BLOCK)
			.until(() -> this.events.stream()
				.anyMatch((recorded) -> recorded.event() instanceof OnRevokedEvent revoked
						&& revoked.getReason() == RevokeReason.LOST));
	}

	@Test
	void shouldStopLeadingAsSoonAsTheLossIsKnownBeforeTheElectionThreadRuns() throws Exception {
		stopsLeadingOnceTheLossIsKnown(Function.identity());
	}

	@Test
	void shouldStopLeadingOnceTheLossIsKnownWhateverLeaseTheHandleStillCounts() throws Exception {
		// A handle may go on counting its lease by the clock after a loss: LockContext
		// promises zero only once the lease has run out.
		stopsLeadingOnceTheLossIsKnown(ClockLeaseTemplate::new);
	}

	/**
	 * Force-release the leader's lock while its election thread is held in
	 * {@code onGranted}, so that only the loss itself, found by the watchdog, can end the
	 * term in time.
	 */
	private void stopsLeadingOnceTheLossIsKnown(Function<LockTemplate, LockTemplate> wrap) throws Exception {
		CountDownLatch unblock = new CountDownLatch(1);
		Instance only = start("a", new BlockingCandidate("a", "forced", unblock), wrap);
		try {
			LeaderTerm term = await().atMost(BLOCK).until(only.initiator()::currentTerm, (found) -> found != null);
			Jobs proxy = jobs(only, new Jobs());
			assertThat(term.isLeader()).isTrue();
			assertThat(proxy.forcedToken()).contains(term.fencingToken());
			assertThat(only.template().forceRelease(LockName.of(LeaderInitiator.LOCK_SCOPE, "forced"))).isTrue();
			// Found by the watchdog's next renewal, a third of a lease later.
			lossKnown(term.handle()).toCompletableFuture().get(BLOCK.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(term.isLeader()).as("isLeader() once the loss is known").isFalse();
			assertThat(only.initiator().isLeader()).isFalse();
			assertThat(proxy.forcedToken()).as("a @LeaderOnly call once the loss is known").isEmpty();
		}
		finally {
			unblock.countDown();
		}
	}

	/**
	 * Return a stage that completes once the loss of the hold is known to all: the stock
	 * handle zeroes its lease before it completes {@code whenLost()}; a
	 * {@link ClockLeaseHandle} tells once every dependent of its {@code whenLost()} ran.
	 */
	private static CompletionStage<Void> lossKnown(LockHandle handle) {
		return (handle instanceof ClockLeaseHandle clock) ? clock.told : handle.whenLost();
	}

	@Test
	void shouldKeepTheLockUntilLeaderOnlyMethodsEndWhenYielding() throws Exception {
		Instance a = start("a", "drain");
		await().atMost(BLOCK).until(a.initiator()::isLeader);
		Instance b = start("b", "drain");
		Jobs jobs = new Jobs();
		Jobs proxy = jobs(a, jobs);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<Long> running = CompletableFuture.supplyAsync(() -> proxy.blockUntil(finish));
		assertThat(jobs.entered.await(BLOCK.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		long yielded = System.nanoTime();
		a.initiator().yieldLeadership();
		await().atMost(BLOCK).until(() -> find(OnRevokedEvent.class, "a", yielded), Optional::isPresent);
		assertThat(proxy.drainToken()).as("no new leader-only call once revoked").isEmpty();
		// Long enough for b to be woken had the lock been released.
		sleep(TIMINGS.waitTime().multipliedBy(3));
		assertThat(b.initiator().isLeader()).isFalse();
		finish.countDown();
		long ended = running.get(BLOCK.toMillis(), TimeUnit.MILLISECONDS);
		await().atMost(BLOCK).until(b.initiator()::isLeader);
		assertThat(find(OnGrantedEvent.class, "b", yielded).orElseThrow().nanos()).isGreaterThan(ended);
	}

	@Test
	void shouldRefuseLeaderOnlyMethodsThatCannotBeSkipped() {
		LeaderOnlyAdvisor advisor = new LeaderOnlyAdvisor(List.of());
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> AopUtils.canApply(advisor, PrimitiveJob.class))
			.withMessageContaining("PrimitiveJob.count")
			.withMessageContaining("returns int");
	}

	@Test
	void shouldRefuseACandidateWithoutARole() {
		// It would hold the keyless lock 'leader', which every such candidate shares.
		Candidate roleless = new DefaultCandidate("a", "unused") {

			@Override
			public String getRole() {
				return null;
			}

		};
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
		try {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> new LeaderInitiator(template, roleless, TIMINGS))
				.withMessageContaining("getRole()");
		}
		finally {
			template.close();
			factory.destroy();
		}
	}

	@Test
	void shouldRefuseCallsForARoleWithoutInitiator() {
		Jobs jobs = proxy(new Jobs(), List.of());
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(jobs::token)
			.withMessageContaining("Leader role 'job'");
	}

	private Instance start(String id, String role) {
		return start(id, new DefaultCandidate(id, role), Function.identity());
	}

	private Instance start(String id, Candidate candidate, Function<LockTemplate, LockTemplate> wrap) {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.defaults(LockDefaults.STANDARD.withLease(LEASE))
			.build();
		LeaderInitiator initiator = new LeaderInitiator(wrap.apply(template), candidate, TIMINGS);
		initiator.setApplicationEventPublisher((event) -> record((LeaderEvent) event));
		Instance instance = new Instance(id, factory, template, initiator);
		this.instances.add(instance);
		initiator.start();
		return instance;
	}

	private void record(LeaderEvent event) {
		LeaderContext context = event.getContext();
		this.events.add(new Recorded(System.nanoTime(), event, context.isLeader(), context.remainingLease()));
	}

	private static Instance leaderOf(List<Instance> instances, long afterToken) {
		for (Instance instance : instances) {
			Optional<LeaderContext> term = instance.initiator().getContext();
			if (term.isPresent() && term.get().isLeader() && term.get().fencingToken() > afterToken) {
				return instance;
			}
		}
		return null;
	}

	/**
	 * Return the first event of the type and instance recorded after the given time:
	 * under load a term may end early (a renewal later than the margin allows) and begin
	 * again, so events before the step under test are left out.
	 */
	private Optional<Recorded> find(Class<? extends LeaderEvent> type, String instance, long afterNanos) {
		return this.events.stream()
			.filter((recorded) -> type.isInstance(recorded.event()) && recorded.event().getInstanceId().equals(instance)
					&& recorded.nanos() > afterNanos)
			.findFirst();
	}

	private List<Term> terms() {
		List<Term> terms = new ArrayList<>();
		for (Recorded granted : this.events) {
			if (granted.event() instanceof OnGrantedEvent) {
				Recorded revoked = this.events.stream()
					.filter((other) -> other.event() instanceof OnRevokedEvent
							&& other.event().getContext() == granted.event().getContext())
					.findFirst()
					.orElseThrow(() -> new AssertionError("no revocation of " + granted.event()));
				terms.add(new Term(granted.event().getInstanceId(), granted.event().getFencingToken(), granted.nanos(),
						revoked.nanos()));
			}
		}
		terms.sort(Comparator.comparingLong(Term::grantedAt));
		return terms;
	}

	private static Jobs jobs(Instance instance, Jobs target) {
		return proxy(target, List.of(instance.initiator()));
	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(T target, List<LeaderInitiator> initiators) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new LeaderOnlyAdvisor(initiators));
		return (T) factory.getProxy();
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	record Instance(String id, LettuceConnectionFactory factory, RedisLockTemplate template,
			LeaderInitiator initiator) {

		void close() {
			this.initiator.stop();
			this.template.close();
			this.factory.destroy();
		}

	}

	record Recorded(long nanos, LeaderEvent event, boolean wasLeader, Duration remainingLease) {

	}

	record Term(String instance, long token, long grantedAt, long revokedAt) {

	}

	static class Jobs {

		final AtomicInteger runs = new AtomicInteger();

		final CountDownLatch entered = new CountDownLatch(1);

		@LeaderOnly("job")
		public Optional<Long> token() {
			this.runs.incrementAndGet();
			return Optional.of(LeaderContext.current().fencingToken());
		}

		@LeaderOnly(role = "lost", onLeadershipLost = LeaseLossPolicy.INTERRUPT)
		public void blockInterruptibly() {
			this.entered.countDown();
			try {
				Thread.sleep(BLOCK.toMillis());
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(new InterruptedException("stopped"));
			}
		}

		@LeaderOnly("forced")
		public Optional<Long> forcedToken() {
			return Optional.of(LeaderContext.current().fencingToken());
		}

		@LeaderOnly("drain")
		public Optional<Long> drainToken() {
			return Optional.of(LeaderContext.current().fencingToken());
		}

		@LeaderOnly("drain")
		public Long blockUntil(CountDownLatch finish) {
			this.entered.countDown();
			try {
				finish.await();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			return System.nanoTime();
		}

	}

	/**
	 * A candidate whose grant callback holds the election thread until told to return.
	 */
	static class BlockingCandidate extends DefaultCandidate {

		private final CountDownLatch unblock;

		BlockingCandidate(String id, String role, CountDownLatch unblock) {
			super(id, role);
			this.unblock = unblock;
		}

		@Override
		public void onGranted(LeaderContext context) {
			try {
				this.unblock.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	/**
	 * A template whose handles count their lease by the local clock alone, from the last
	 * renewal, as {@link LockContext#remainingLease()} allows: a lost hold's lease is not
	 * zeroed.
	 */
	record ClockLeaseTemplate(LockTemplate delegate) implements LockTemplate {

		@Override
		public LockHandle acquire(LockRequest request) {
			return new ClockLeaseHandle((RedisLockHandle) this.delegate.acquire(request));
		}

		@Override
		public Optional<LockHandle> tryAcquire(LockRequest request) {
			return this.delegate.tryAcquire(request).map((handle) -> new ClockLeaseHandle((RedisLockHandle) handle));
		}

		@Override
		public LockHandle acquireAll(List<LockRequest> requests) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Optional<LockHandle> findHeld(LockName name, String owner) {
			return this.delegate.findHeld(name, owner);
		}

		@Override
		public boolean isLocked(String scope, @Nullable String key) {
			return this.delegate.isLocked(scope, key);
		}

		@Override
		public boolean isHeldByCurrentThread(String scope, @Nullable String key) {
			return this.delegate.isHeldByCurrentThread(scope, key);
		}

	}

	static final class ClockLeaseHandle implements LockHandle {

		private final RedisLockHandle delegate;

		private final CompletableFuture<Void> lost = new CompletableFuture<>();

		final CompletableFuture<Void> told = new CompletableFuture<>();

		ClockLeaseHandle(RedisLockHandle delegate) {
			this.delegate = delegate;
			delegate.whenLost().thenRun(() -> {
				// Runs the dependents, the term's among them, before it returns.
				this.lost.complete(null);
				this.told.complete(null);
			});
		}

		@Override
		public Duration remainingLease() {
			long left = this.delegate.hold().leaseEndNanos() - System.nanoTime();
			return Duration.ofNanos(Math.max(0, left));
		}

		@Override
		public LockName name() {
			return this.delegate.name();
		}

		@Override
		public long fencingToken() {
			return this.delegate.fencingToken();
		}

		@Override
		public boolean waited() {
			return this.delegate.waited();
		}

		@Override
		public Duration waitedFor() {
			return this.delegate.waitedFor();
		}

		@Override
		public int attempts() {
			return this.delegate.attempts();
		}

		@Override
		public boolean isHeld() {
			return this.delegate.isHeld();
		}

		@Override
		public void extend(Duration lease) {
			this.delegate.extend(lease);
		}

		@Override
		public CompletionStage<Void> whenLost() {
			return this.lost.minimalCompletionStage();
		}

		@Override
		public void close() {
			this.delegate.close();
		}

	}

	static class PrimitiveJob {

		@LeaderOnly("job")
		public int count() {
			return 1;
		}

	}

}
