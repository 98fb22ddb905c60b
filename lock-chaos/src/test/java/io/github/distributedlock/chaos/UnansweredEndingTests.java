package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A hold that no caller counts on ends as soon as Redis answers again, not with its
 * lease: the hold left by a release that never ran (cancelled before it was written), and
 * the hold an attempt took whose reply never came, undone while every reply is lost.
 * Leases here are long, so a hold that only ends with its lease shows as a lock that
 * stays taken.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnansweredEndingTests {

	private static final Duration LEASE = Duration.ofSeconds(20);

	/** Longer than the command timeout: the client gives up on the command first. */
	private static final Duration HUNG = Connections.COMMAND_TIMEOUT.plusMillis(1000);

	private ResendBench bench;

	/** Connected through the proxy: its commands are the ones lost. */
	private RedisLockTemplate holder;

	/** Connected to Redis directly, with owners of its own. */
	private RedisLockTemplate stranger;

	private int tests;

	private String scope;

	@BeforeAll
	void startRedis() throws IOException {
		this.bench = ResendBench.start();
	}

	@AfterAll
	void stopRedis() {
		this.bench.close();
	}

	@BeforeEach
	void connect(TestInfo info) {
		this.scope = info.getTestMethod().orElseThrow().getName() + "-" + (++this.tests);
		this.holder = this.bench.throughProxy();
		this.stranger = this.bench.direct();
	}

	@AfterEach
	void disconnect() {
		this.bench.disconnect();
	}

	/**
	 * The release never reaches Redis: {@code close()} fails, and the hold must end once
	 * the holder's connection is back, so that a stranger gets the lock long before the
	 * lease would have ended it.
	 */
	@Test
	void shouldEndAHoldWhoseReleaseNeverRan() throws Exception {
		LockHandle held = this.holder.acquire(request().build());
		ReplyDrop unsent = this.bench.arm(ResendBench.onScript("release.lua").unsent(HUNG));
		assertThatExceptionOfType(LockAccessException.class).as("close() whose release never reached Redis")
			.isThrownBy(held::close);
		assertThat(unsent.awaitDropped(HUNG.plusSeconds(5))).as("the proxy held the release back").isTrue();
		long since = System.nanoTime();
		Optional<LockHandle> taken = this.stranger.tryAcquire(request().waitTime(Duration.ofSeconds(10)).build());
		long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
		taken.ifPresent(LockHandle::close);
		assertThat(taken).as("a stranger's lock, waited for %d ms, the hold's lease %s", waited, LEASE).isPresent();
	}

	/**
	 * After its release never ran, the same thread takes the lock again at once and
	 * releases it: the hold its release left must not keep the lock taken, so that a
	 * stranger gets it soon after, long before the lease would have ended it.
	 */
	@Test
	void shouldFreeTheLockOnceTheThreadsNextHoldIsClosed() throws Exception {
		LockHandle first = this.holder.acquire(request().build());
		ReplyDrop unsent = this.bench.arm(ResendBench.onScript("release.lua").unsent(HUNG));
		assertThatExceptionOfType(LockAccessException.class).isThrownBy(first::close);
		assertThat(unsent.awaitDropped(HUNG.plusSeconds(5))).as("the proxy held the release back").isTrue();
		// At once, on the same thread: before the release is sent again.
		LockHandle again = this.holder.acquire(request().waitTime(Duration.ofSeconds(10)).build());
		again.close();
		long since = System.nanoTime();
		Optional<LockHandle> taken = this.stranger.tryAcquire(request().waitTime(Duration.ofSeconds(5)).build());
		long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
		taken.ifPresent(LockHandle::close);
		assertThat(taken)
			.as("a stranger's lock, waited for %d ms once the thread closed its next hold (token %d, then %d)", waited,
					first.fencingToken(), again.fencingToken())
			.isPresent();
	}

	/**
	 * A waiter's attempt takes the lock reserved for it, but every reply to its client is
	 * held back: the attempt fails after the command timeout, and its undo (also without
	 * replies) must end that hold at once, not lengthen it. The next waiter gets the lock
	 * well before the lost attempt's lease would have ended it.
	 */
	@Test
	void shouldNotLengthenTheHoldItUndoes() throws Exception {
		LockHandle first = this.stranger.acquire(request().build());
		CompletableFuture<Throwable> lost = ResendBench.inBackground(() -> {
			try {
				this.holder.acquire(request().waitTime(Duration.ofSeconds(30)).build()).close();
				return null;
			}
			catch (RuntimeException ex) {
				return ex;
			}
		});
		awaitRequests(1);
		RedisLockTemplate third = this.bench.direct();
		CompletableFuture<Optional<LockHandle>> next = ResendBench
			.inBackground(() -> third.tryAcquire(request().waitTime(Duration.ofSeconds(12)).build()));
		awaitRequests(2);
		this.bench.holdRepliesOfProxy();
		long released = System.nanoTime();
		try {
			first.close();
			assertThat(lost.get(20, TimeUnit.SECONDS)).as("the waiter whose replies were held")
				.isInstanceOf(LockAccessException.class);
			Optional<LockHandle> taken = next.get(20, TimeUnit.SECONDS);
			long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
			taken.ifPresent(LockHandle::close);
			assertThat(taken).as("the next waiter's lock, %d ms after the release, the lease %s", waited, LEASE)
				.isPresent();
		}
		finally {
			this.bench.releaseRepliesOfProxy();
		}
	}

	private void awaitRequests(long count) throws InterruptedException {
		String requests = lockKey() + ":requests";
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.bench.zcard(requests) < count && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
		}
		assertThat(this.bench.zcard(requests)).as("requests filed in %s", requests).isEqualTo(count);
	}

	private LockRequest.Builder request() {
		return LockRequest.builder(this.scope).key("k").lease(LEASE).waitTime(Duration.ZERO);
	}

	private String lockKey() {
		return this.stranger.lockKey(LockName.of(this.scope, "k"));
	}

}
