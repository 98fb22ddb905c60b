package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release of a lock publishes only if an attempt found it taken (the 'queued' mark,
 * {@code mark_queued} in {@code lib.lua}), so every kind of waiter must mark the hold it
 * waits for before it sleeps. Each test holds a lock with a 10 s lease, lets a waiter of
 * another process sleep on it, releases it, and expects the waiter to have it well before
 * the lease would have ended: a waiter that did not mark the hold is not told, and sleeps
 * until the lease ends.
 */
class ReleaseWakeUpTests {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final Duration PROMPTLY = Duration.ofSeconds(2);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldWakeAWaiterThatFilesNoRequest() throws Exception {
		// Without hand-off, waiters file no request: only the mark tells the release.
		try (RedisLockTemplate holder = template(true); RedisLockTemplate waiter = template(false)) {
			assertWokenPromptly(holder, waiter, request("plain"), request("plain"));
		}
	}

	@Test
	void shouldWakeAReaderThatFilesNoRequest() throws Exception {
		try (RedisLockTemplate holder = template(true); RedisLockTemplate waiter = template(false)) {
			assertWokenPromptly(holder, waiter, request("rw"),
					LockRequest.builder("wake").key("rw").mode(LockMode.READ).waitTime(Duration.ofSeconds(9)).build());
		}
	}

	@Test
	void shouldWakeAFairWaiterBlockedByAPlainHold() throws Exception {
		// A fair waiter also tries again at each heartbeat: make that later than the
		// lease.
		try (RedisLockTemplate holder = template(true);
				RedisLockTemplate waiter = RedisLockTemplate.builder(this.connected.connectionFactory())
					.fairWaiterTimeout(Duration.ofSeconds(60))
					.build()) {
			assertWokenPromptly(holder, waiter, request("fair"),
					LockRequest.builder("wake").key("fair").fair(true).waitTime(Duration.ofSeconds(9)).build());
		}
	}

	@Test
	void shouldWakeAWaiterWhoseFirstTryFoundTheLockTakenWhileItAlreadyListened() throws Exception {
		// A waiter of a lock waited for a moment ago in its process is subscribed
		// already: it sleeps right after its first try, which must mark the hold.
		try (RedisLockTemplate holder = template(true); RedisLockTemplate waiter = template(false)) {
			assertWokenPromptly(holder, waiter, request("hot"), request("hot"));
			assertWokenPromptly(holder, waiter, request("hot"), request("hot"));
		}
	}

	// Found by an adversarial review of the mark; it failed before the writer intent
	// counted on the free-name path.
	@Test
	void shouldWakeAReaderHeldBackByAWriterIntentWhenTheWriterReleases() throws Exception {
		// A reader held back by a waiting writer's intent finds no lock hash to mark. The
		// writer then takes the lock through the free-name path (no line: hand-off off),
		// so its hold is unmarked and its release tells nobody: the reader sleeps until
		// the intent it was told of ends (about the first reader's lease).
		try (RedisLockTemplate first = template(false);
				RedisLockTemplate writer = template(false);
				RedisLockTemplate reader = template(false)) {
			LockHandle reading = first.acquire(read().lease(LEASE).build());
			Future<Long> written = this.connected.executor().submit(() -> {
				try (LockHandle hold = writer.acquire(write().waitTime(Duration.ofSeconds(9)).build())) {
					Thread.sleep(100);
				}
				return System.nanoTime();
			});
			Thread.sleep(300);
			Future<LockHandle> waiting = this.connected.executor()
				.submit(() -> reader.acquire(read().waitTime(Duration.ofSeconds(20)).build()));
			Thread.sleep(300);
			reading.close();
			long released = written.get(9, TimeUnit.SECONDS);
			try (LockHandle taken = waiting.get(20, TimeUnit.SECONDS)) {
				assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken after the writer's release")
					.isLessThan(PROMPTLY);
			}
		}
	}

	@Test
	void shouldWakeAWriterQueuedBehindADowngradeWhenTheLastReadGoes() throws Exception {
		// The writer also reads (a downgrade): its write release finds a marked hold and
		// readers, puts the request back and frees the lock; the queued writer then waits
		// for the readers without a hash to mark, and "readers-left" must wake it.
		try (RedisLockTemplate holder = template(false); RedisLockTemplate waiter = template(false)) {
			LockHandle write = holder.acquire(write().lease(LEASE).build());
			LockHandle read = holder.acquire(read().lease(LEASE).build());
			Future<LockHandle> waiting = this.connected.executor()
				.submit(() -> waiter.acquire(write().waitTime(Duration.ofSeconds(20)).build()));
			Thread.sleep(300);
			write.close();
			Thread.sleep(300);
			assertThat(waiting.isDone()).as("the downgrade still reads").isFalse();
			long released = System.nanoTime();
			read.close();
			try (LockHandle taken = waiting.get(20, TimeUnit.SECONDS)) {
				assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken after the last read")
					.isLessThan(PROMPTLY);
			}
		}
	}

	private static LockRequest.Builder read() {
		return LockRequest.builder("rw-wake").key("intent").mode(LockMode.READ);
	}

	private static LockRequest.Builder write() {
		return LockRequest.builder("rw-wake").key("intent");
	}

	private void assertWokenPromptly(RedisLockTemplate holder, RedisLockTemplate waiter, LockRequest held,
			LockRequest waited) throws Exception {
		LockHandle hold = holder
			.acquire(LockRequest.builder(held.name().scope()).key(held.name().key()).lease(LEASE).build());
		Future<LockHandle> waiting = this.connected.executor().submit(() -> waiter.acquire(waited));
		Thread.sleep(300);
		long released = System.nanoTime();
		hold.close();
		try (LockHandle taken = waiting.get(9, TimeUnit.SECONDS)) {
			assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken after the release")
				.isLessThan(PROMPTLY);
			assertThat(taken.waited()).isTrue();
		}
	}

	private static LockRequest request(String key) {
		return LockRequest.builder("wake").key(key).waitTime(Duration.ofSeconds(9)).build();
	}

	private RedisLockTemplate template(boolean handOff) {
		return RedisLockTemplate.builder(this.connected.connectionFactory())
			.handOff(handOff)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build();
	}

}
