package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A handle closed late must not end a newer hold of the same owner when Redis kept a
 * lease that the {@link HoldRegistry} did not see set: the owner stays counted, so the
 * newer hold is a re-entry rather than a take-over with the same token.
 */
class LateCloseTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private RedisLockTemplate template;

	private LettuceConnectionFactory slowFactory;

	private RedisLockTemplate slowTemplate;

	@BeforeEach
	void connect() {
		// A short command timeout, so that a command sent to a stalled Redis times out on
		// the client while Redis still runs it later: a write whose reply was lost.
		this.factory = RedisConnections.standalone(redis.server().host(), redis.server().port(),
				Duration.ofMillis(1000));
		this.slowFactory = RedisConnections.standalone(redis.server().host(), redis.server().port(),
				Duration.ofSeconds(5));
		this.slowTemplate = RedisLockTemplate.builder(this.slowFactory).build();
		// On a loaded machine the first handshake may take longer than that: retry it.
		for (int i = 0;; i++) {
			try {
				this.template = RedisLockTemplate.builder(this.factory).build();
				break;
			}
			catch (RuntimeException ex) {
				if (i == 10) {
					throw ex;
				}
			}
		}
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.factory.destroy();
		this.slowTemplate.close();
		this.slowFactory.destroy();
		redis.server().flushAll();
	}

	/**
	 * A re-entry whose reply was lost (the command timed out, Redis ran it later)
	 * lengthens the lock's lease beyond every bound the {@link HoldRegistry} tracks. Once
	 * the abandoned outer handle's own bound passes, the owner no longer counts as
	 * holding the lock, so the next acquisition of the same thread takes the hold over
	 * (holds = 1, the same token) instead of counting it; the late close of the abandoned
	 * outer handle then would delete the lock under the newer hold.
	 */
	@Test
	void shouldKeepANewerHoldWhenAnAbandonedHandleIsClosedAfterALostReentryReply() throws Exception {
		LockHandle outer = this.template.acquire(request().lease(Duration.ofMillis(4000)).build());
		redis.managedServer().pause();
		try {
			// A re-entry (the outer handle is registered), whose reply never comes in
			// time.
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> this.template.acquire(request().lease(Duration.ofSeconds(30)).build()));
		}
		finally {
			redis.managedServer().resume();
		}
		String key = this.template.lockKey(LockName.of("late-close", "lost-reentry"));
		// Redis ran it once resumed, with the re-entry's 30 s lease; then the driver
		// undid it by its hold id: one hold left, and the lease, which a release never
		// shortens, still past every bound the registry keeps.
		await().atMost(Duration.ofSeconds(5))
			.until(() -> ((Number) redis.server().command("PTTL", key)).longValue() > 10_000
					&& "1".equals(String.valueOf(redis.server().command("HGET", key, "holds"))));
		// The outer handle is abandoned: its lease (and the bound the registry keeps)
		// ends.
		Thread.sleep(4000);
		try (LockHandle next = this.template.acquire(request().lease(Duration.ofSeconds(30)).build())) {
			try {
				outer.close();
			}
			catch (LockLeaseLostException ex) {
				// Reporting the abandoned hold as lost is fine; ending the newer hold is
				// not.
			}
			assertThat(next.isHeld()).as("the newer hold survives the late close of the abandoned one").isTrue();
		}
	}

	/**
	 * An extension whose reply was lost (the command timed out, Redis ran it later) sets
	 * a lease that nothing bounds: the owner stays counted until the handle is closed, so
	 * the same thread's next acquisition is a re-entry that the late close leaves alone,
	 * and once every handle is closed the owner is forgotten.
	 */
	@Test
	void shouldKeepANewerHoldWhenAHandleIsClosedAfterALostExtendReply() throws Exception {
		LockHandle held = this.template.acquire(extended().lease(Duration.ofMillis(2000)).build());
		redis.managedServer().pause();
		try {
			assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> held.extend(Duration.ofSeconds(30)));
		}
		finally {
			redis.managedServer().resume();
		}
		String key = this.template.lockKey(held.name());
		// Redis ran it once resumed: the 30 s lease.
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Long.parseLong(String.valueOf(redis.server().command("PTTL", key))) > 20_000);
		// Past the handle's own lease and every bound of a reply.
		Thread.sleep(2500);
		try (LockHandle next = this.template.acquire(extended().lease(Duration.ofSeconds(30)).build())) {
			try {
				held.close();
			}
			catch (LockLeaseLostException ex) {
				// Reporting the lost lease is fine; ending the newer hold is not.
			}
			assertThat(next.isHeld()).as("the newer hold survives the late close of the extended one").isTrue();
		}
		assertThat(TemplateHolds.count(this.template)).as("forgotten once every handle is closed").isZero();
	}

	/**
	 * A hold whose reply came late (Redis stalled, within the command timeout) is past
	 * its local lease when it is returned, while Redis keeps it for the lease counted
	 * from the stall's end. The sweep drops it; {@link LockHandle#extend} then succeeds,
	 * and the handle is live again, yet the {@link HoldRegistry} no longer has it: it is
	 * missing from {@code heldLocks()}, and its extended lease is not counted, so once
	 * the bound of the dropped hold passes, the same thread's next acquisition takes the
	 * hold over and the late close of the extended handle would delete the lock under it.
	 */
	@Test
	void shouldKeepAnExtendedHandleRegisteredAfterTheSweepDroppedIt() throws Exception {
		Thread resumer = new Thread(() -> {
			try {
				Thread.sleep(1500);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			redis.managedServer().resume();
		});
		redis.managedServer().pause();
		resumer.start();
		LockHandle held;
		try {
			held = this.slowTemplate.acquire(slowRequest().lease(Duration.ofMillis(1000)).build());
		}
		finally {
			resumer.join();
		}
		// Past its local lease already: this read of the holds drops it (the sweep).
		this.slowTemplate.heldLocks();
		held.extend(Duration.ofSeconds(30));
		assertThat(held.remainingLease()).isGreaterThan(Duration.ofSeconds(20));
		int listed = this.slowTemplate.heldLocks().size();
		// Past the bound the registry kept for the dropped hold (its reply plus 1 s).
		Thread.sleep(1500);
		LockHandle next = this.slowTemplate.acquire(slowRequest().lease(Duration.ofSeconds(30)).build());
		boolean nextHeld;
		try {
			try {
				held.close();
			}
			catch (LockLeaseLostException ex) {
				// Not expected either, but not the point here.
			}
			nextHeld = next.isHeld();
		}
		finally {
			try {
				next.close();
			}
			catch (LockLeaseLostException ex) {
				// It was ended under it: the assertion below says so.
			}
		}
		assertThat(nextHeld).as("the newer hold survives the close of the extended one").isTrue();
		assertThat(listed).as("the extended, live handle is listed in heldLocks()").isEqualTo(1);
	}

	private static LockRequest.Builder extended() {
		return LockRequest.builder("late-close").key("lost-extend").waitTime(Duration.ZERO);
	}

	private static LockRequest.Builder slowRequest() {
		return LockRequest.builder("late-close").key("slow-reply").waitTime(Duration.ZERO);
	}

	private static LockRequest.Builder request() {
		return LockRequest.builder("late-close").key("lost-reentry").waitTime(Duration.ZERO);
	}

}
