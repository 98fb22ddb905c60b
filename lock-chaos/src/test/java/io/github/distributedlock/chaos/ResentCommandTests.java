package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scripts that Redis runs twice because the connection dropped after Redis ran them and
 * before their reply arrived: Lettuce, as Spring's connection factory configures it by
 * default, re-sends after reconnecting every command it wrote and got no reply for (issue
 * 22). A {@link ChaosProxy} forwards the next script run ({@code FCALL} or
 * {@code EVALSHA}), drops Redis's reply and closes the connection; {@code MONITOR} shows
 * that Redis ran it twice. Every script must be safe to run twice, so the tests check
 * only what a user sees: who can take the lock, whether closing a handle succeeds, and
 * whether any key of the lock is left once everything is closed. Leases are long (30 s),
 * so a hold counted twice or left behind shows as a stranger that does not get the lock
 * within half a second.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResentCommandTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	/**
	 * How long a stranger waits for a lock that must be free: no hold of it is left, so
	 * it should get it at its first attempt.
	 */
	private static final Duration SHORT_WAIT = Duration.ofMillis(500);

	private RedisProcess redis;

	private ChaosProxy proxy;

	private CommandRuns monitor;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	/** Connected through the proxy: its commands are the ones re-sent. */
	private RedisLockTemplate holder;

	/** Connected to Redis directly, with owners of its own. */
	private RedisLockTemplate stranger;

	private int tests;

	private String scope;

	@BeforeAll
	void startRedis() throws IOException {
		this.redis = RedisServers.launch();
		ResendBench.loadEveryScript(this.redis);
		this.proxy = ChaosProxy.start(this.redis.port());
		this.monitor = CommandRuns.start(this.redis);
	}

	@AfterAll
	void stopRedis() {
		// Each is null where starting the ones before it failed.
		if (this.monitor != null) {
			this.monitor.close();
		}
		if (this.proxy != null) {
			this.proxy.close();
		}
		if (this.redis != null) {
			this.redis.close();
		}
	}

	@BeforeEach
	void connect(TestInfo info) {
		// Parameterized tests share the method's name: each invocation gets locks of its
		// own.
		this.scope = info.getTestMethod().orElseThrow().getName() + "-" + (++this.tests);
		this.holder = template(Connections.standalone(this.proxy.port()));
		this.stranger = template(Connections.standalone(this.redis.port()));
	}

	@AfterEach
	void disconnect() {
		this.templates.forEach(RedisLockTemplate::close);
		this.templates.clear();
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.factories.clear();
	}

	/**
	 * Lettuce re-sends the inner release after it reconnects: it must not release the
	 * outer hold too (it did: the second run took the hold count to 0 and deleted the
	 * lock, a stranger got it, and the outer close threw LockLeaseLostException).
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldKeepTheOuterHoldWhenTheInnerReleaseIsResent(Kind kind) throws Exception {
		LockRequest hold = holding(kind).build();
		LockHandle outer = this.holder.acquire(hold);
		LockHandle inner = this.holder.acquire(hold);
		resent(inner::close);
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO)))
			.as("a stranger took the %s lock while the outer hold was open", kind)
			.isFalse();
		outer.close();
		assertFreeAndGone(kind, outer.name());
	}

	/**
	 * A custom owner held by two templates, each through its own connection factory: the
	 * release of one, re-sent, must not end the other's hold.
	 */
	@Test
	void shouldKeepAnotherTemplatesHoldOfTheSameOwnerWhenOneReleaseIsResent() throws Exception {
		RedisLockTemplate other = template(Connections.standalone(this.redis.port()));
		LockRequest hold = holding(Kind.EXCLUSIVE).owner("job-" + this.scope).build();
		LockHandle mine = this.holder.acquire(hold);
		LockHandle theirs = other.acquire(hold);
		resent(mine::close);
		assertThat(takes(this.stranger, excluded(Kind.EXCLUSIVE, Duration.ZERO)))
			.as("a stranger took the lock while the other template's hold of the owner was open")
			.isFalse();
		theirs.close();
		assertFreeAndGone(Kind.EXCLUSIVE, theirs.name());
	}

	/**
	 * A re-entry whose acquire ran twice is one hold: once it and the outer hold are
	 * closed, the lock is free (it was counted twice, and stayed taken for the lease).
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldCountAResentReentryOnce(Kind kind) throws Exception {
		LockRequest hold = holding(kind).build();
		LockHandle outer = this.holder.acquire(hold);
		LockHandle inner = resent(() -> this.holder.acquire(hold));
		inner.close();
		outer.close();
		assertFreeAndGone(kind, outer.name());
	}

	/**
	 * The first acquire of a lock, re-sent: one hold, which its close ends.
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldCountAResentFirstAcquireOnce(Kind kind) throws Exception {
		assertOneHoldAfterResentFirstAcquire(kind, holding(kind).build());
	}

	/**
	 * A non-reentrant acquire re-sent finds the lock held by its own owner: that is its
	 * own first run, not a self-deadlock (a read lock threw LockSelfDeadlockException
	 * while its hold stayed in Redis).
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, names = { "EXCLUSIVE", "READ", "FAIR" })
	void shouldGrantANonReentrantAcquireThatWasResent(Kind kind) throws Exception {
		assertOneHoldAfterResentFirstAcquire(kind, holding(kind).reentrant(false).build());
	}

	private void assertOneHoldAfterResentFirstAcquire(Kind kind, LockRequest hold) throws Exception {
		LockHandle held = resent(() -> this.holder.acquire(hold));
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO))).as("a stranger took the held %s lock", kind)
			.isFalse();
		held.close();
		assertFreeAndGone(kind, held.name());
	}

	/**
	 * The same for a multi-lock, taken for the first time or re-entered.
	 */
	@ParameterizedTest(name = "re-entered: {0}")
	@ValueSource(booleans = { false, true })
	void shouldCountAResentMultiLockAcquisitionOnce(boolean reentered) throws Exception {
		List<LockRequest> both = List.of(holding(Kind.EXCLUSIVE).key("a").build(),
				holding(Kind.EXCLUSIVE).key("b").build());
		LockHandle outer = reentered ? this.holder.acquireAll(both) : null;
		LockHandle inner = resent(() -> this.holder.acquireAll(both));
		assertThat(takes(this.stranger, LockRequest.builder(this.scope).key("a").waitTime(Duration.ZERO).build()))
			.as("a stranger took a held lock of the multi-lock")
			.isFalse();
		inner.close();
		if (outer != null) {
			outer.close();
		}
		for (String key : List.of("a", "b")) {
			assertThat(takes(this.stranger, LockRequest.builder(this.scope).key(key).waitTime(SHORT_WAIT).build()))
				.as("a stranger took lock %s once every hold was closed", key)
				.isTrue();
			assertNoKeysLeft(LockName.of(this.scope, key));
		}
	}

	/**
	 * A permit whose acquire ran twice is one permit: of two, the second is still there
	 * for another holder, and no third (a second, orphaned permit was taken).
	 */
	@Test
	void shouldTakeOnePermitWhenItsAcquireIsResent() throws Exception {
		RedisLockTemplate third = template(Connections.standalone(this.redis.port()));
		LockRequest permit = LockRequest.builder(this.scope)
			.key("k")
			.permits(2)
			.lease(LEASE)
			.waitTime(Duration.ZERO)
			.build();
		LockHandle first = resent(() -> this.holder.acquire(permit));
		Optional<LockHandle> second = this.stranger.tryAcquire(permit);
		assertThat(second).as("the second of two permits, after the first one's acquire ran twice").isPresent();
		assertThat(takes(third, permit)).as("a third permit of two").isFalse();
		first.close();
		second.get().close();
		Optional<LockHandle> again = this.stranger.tryAcquire(permit);
		Optional<LockHandle> andAgain = third.tryAcquire(permit);
		assertThat(List.of(again, andAgain)).as("both permits, once their holders closed them")
			.allMatch(Optional::isPresent);
		again.get().close();
		andAgain.get().close();
		assertNoKeysLeft(first.name());
	}

	/**
	 * The last release re-sent: its second run finds the lock gone and cannot tell that
	 * its own first run released it, so {@code close()} may return or report the lease
	 * lost; only that nobody else had the lock before and that it is free after count.
	 */
	@ParameterizedTest
	@EnumSource(Kind.class)
	void shouldFreeTheLockWhenTheLastReleaseIsResent(Kind kind) throws Exception {
		LockHandle held = this.holder.acquire(holding(kind).build());
		assertThat(takes(this.stranger, excluded(kind, Duration.ZERO))).as("a stranger took the held %s lock", kind)
			.isFalse();
		resent(() -> {
			try {
				held.close();
			}
			catch (LockLeaseLostException ex) {
				// Allowed: see above.
			}
		});
		assertFreeAndGone(kind, held.name());
	}

	/**
	 * A watchdog renewal re-sent renews the hold twice, which keeps it: it is held past
	 * its first lease, and freed by its close.
	 */
	@Test
	void shouldKeepAHoldWhoseRenewalIsResent() throws Exception {
		// Long enough that the next renewal, a third of it later, comes well after the
		// re-sent one.
		Duration lease = Duration.ofMillis(2400);
		long acquiredNanos = System.nanoTime();
		LockHandle held = this.holder.acquire(holding(Kind.EXCLUSIVE).lease(lease).autoRenew(true).build());
		// The watchdog's first renewal, a third of a lease later, is the next script run.
		this.monitor.mark();
		ReplyDrop drop = this.proxy.arm(ReplyDrop.onScript(null).runnableOn(this.redis));
		try {
			assertThat(drop.awaitDropped(lease)).as("the proxy dropped the reply to the first renewal").isTrue();
		}
		finally {
			this.proxy.cancel(drop);
		}
		// The next renewal comes a third of a lease after this one.
		long runs = await().atMost(lease.dividedBy(3)).until(() -> this.monitor.runs(drop.command()), (n) -> n >= 2);
		assertThat(runs).as("runs of %s", drop).isEqualTo(2);
		long pastFirstLease = acquiredNanos + lease.plusMillis(300).toNanos() - System.nanoTime();
		Thread.sleep(Math.max(0, pastFirstLease / 1_000_000));
		assertThat(takes(this.stranger, excluded(Kind.EXCLUSIVE, Duration.ZERO)))
			.as("a stranger took the lock after its first lease, renewed since")
			.isFalse();
		assertThat(held.isHeld()).as("still held, after its first lease").isTrue();
		held.close();
		assertFreeAndGone(Kind.EXCLUSIVE, held.name());
	}

	/**
	 * Run a call with the reply to its script run dropped, and check that Redis ran that
	 * command twice.
	 */
	private <T> T resent(Supplier<T> call) throws InterruptedException {
		this.monitor.mark();
		ReplyDrop drop = this.proxy.arm(ReplyDrop.onScript(null).runnableOn(this.redis));
		T result;
		try {
			result = call.get();
		}
		finally {
			this.proxy.cancel(drop);
		}
		assertThat(drop.awaitDropped(Duration.ofSeconds(1))).as("the proxy dropped the reply to the next script run")
			.isTrue();
		assertThat(this.monitor.runs(drop.command())).as("runs of %s", drop).isEqualTo(2);
		return result;
	}

	/**
	 * Run a call with the reply to its script run dropped, check that Redis ran that
	 * command twice, and return the command.
	 */
	private List<String> resentCommand(Runnable call) throws InterruptedException {
		this.monitor.mark();
		ReplyDrop drop = this.proxy.arm(ReplyDrop.onScript(null).runnableOn(this.redis));
		try {
			call.run();
		}
		finally {
			this.proxy.cancel(drop);
		}
		assertThat(drop.awaitDropped(Duration.ofSeconds(1))).as("the proxy dropped the reply to the next script run")
			.isTrue();
		assertThat(this.monitor.runs(drop.command())).as("runs of %s", drop).isEqualTo(2);
		return drop.command();
	}

	private void resent(Runnable call) throws InterruptedException {
		resent(() -> {
			call.run();
			return null;
		});
	}

	/**
	 * Check that a stranger gets the lock at once, and that no key of it is left after
	 * the stranger released it.
	 */
	private void assertFreeAndGone(Kind kind, LockName name) {
		assertThat(takes(this.stranger, excluded(kind, SHORT_WAIT)))
			.as("a stranger took the %s lock once every hold was closed", kind)
			.isTrue();
		assertNoKeysLeft(name);
	}

	private void assertNoKeysLeft(LockName name) {
		assertThat((List<?>) this.redis.command("KEYS", this.stranger.lockKey(name) + "*"))
			.as("keys of %s left in Redis", name)
			.isEmpty();
	}

	private static boolean takes(RedisLockTemplate template, LockRequest request) {
		Optional<LockHandle> taken = template.tryAcquire(request);
		taken.ifPresent(LockHandle::close);
		return taken.isPresent();
	}

	private LockRequest.Builder holding(Kind kind) {
		return kind.holding(LockRequest.builder(this.scope).key("k")).lease(LEASE);
	}

	private LockRequest excluded(Kind kind, Duration waitTime) {
		return kind.excluded(LockRequest.builder(this.scope).key("k")).lease(LEASE).waitTime(waitTime).build();
	}

	private RedisLockTemplate template(LettuceConnectionFactory factory) {
		this.factories.add(factory);
		RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
		this.templates.add(template);
		return template;
	}

	/**
	 * A kind of hold, and the request of a stranger that it excludes.
	 */
	enum Kind {

		EXCLUSIVE, READ, FAIR, PERMIT;

		LockRequest.Builder holding(LockRequest.Builder request) {
			return switch (this) {
				case EXCLUSIVE -> request;
				case READ -> request.mode(LockMode.READ);
				case FAIR -> request.fair(true);
				case PERMIT -> request.permits(1);
			};
		}

		LockRequest.Builder excluded(LockRequest.Builder request) {
			return switch (this) {
				case EXCLUSIVE -> request;
				case READ -> request.mode(LockMode.WRITE);
				case FAIR -> request.fair(true);
				case PERMIT -> request.permits(1);
			};
		}

	}

}
