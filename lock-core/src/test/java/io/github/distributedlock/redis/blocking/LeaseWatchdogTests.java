package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisConnections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
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
 * Lease renewal by the watchdog, lost-lease reporting, and custom owners, against a real
 * redis-server.
 */
class LeaseWatchdogTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private RedisLockTemplate template;

	private RedisLockTemplate otherProcess;

	private final List<LockName> lost = new CopyOnWriteArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeEach
	void connect() {
		this.factory = RedisConnections.standalone(redis.server());
		LockDefaults defaults = LockDefaults.STANDARD.withLease(Duration.ofSeconds(1));
		this.template = RedisLockTemplate.builder(this.factory).defaults(defaults).listener(new LockListener() {
			@Override
			public void leaseLost(LockContext context) {
				LeaseWatchdogTests.this.lost.add(context.name());
			}
		}).build();
		this.otherProcess = RedisLockTemplate.builder(this.factory).defaults(defaults).build();
	}

	@AfterEach
	void disconnect() {
		this.executor.shutdownNow();
		RedisProcess server = (RedisProcess) redis.server();
		if (!server.isRunning()) {
			server.start();
		}
		this.template.close();
		this.otherProcess.close();
		this.factory.destroy();
	}

	@Test
	void shouldKeepAOneSecondLeaseAliveThroughAFiveSecondCriticalSection() throws Exception {
		try (LockHandle held = this.template.acquire(
				LockRequest.builder("watchdog").key("long").lease(Duration.ofSeconds(1)).autoRenew(true).build())) {
			for (int i = 0; i < 10; i++) {
				Thread.sleep(500);
				assertThat(this.otherProcess
					.tryAcquire(LockRequest.builder("watchdog").key("long").waitTime(Duration.ZERO).build())).isEmpty();
			}
			assertThat(held.isHeld()).isTrue();
			assertThat(held.remainingLease()).isGreaterThan(Duration.ZERO);
		}
		assertThat(this.lost).isEmpty();
	}

	@Test
	void shouldRenewLocksRequestedWithoutALeaseAndNotOthers() throws Exception {
		LockHandle renewed = this.template.acquire(LockRequest.of("watchdog", "implicit"));
		LockHandle fixed = this.template
			.acquire(LockRequest.builder("watchdog").key("explicit").lease(Duration.ofSeconds(1)).build());
		Thread.sleep(2500);
		assertThat(renewed.isHeld()).isTrue();
		assertThat(fixed.isHeld()).isFalse();
		renewed.close();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(fixed::close);
	}

	@Test
	void shouldStopRenewingAfterRelease() throws Exception {
		LockHandle held = this.template.acquire(
				LockRequest.builder("watchdog").key("released").lease(Duration.ofMillis(600)).autoRenew(true).build());
		Thread.sleep(700);
		held.close();
		long before = scriptCalls();
		Thread.sleep(1500);
		assertThat(scriptCalls()).as("no renewals after release").isEqualTo(before);
		assertThat(this.template.isLocked("watchdog", "released")).isFalse();
	}

	@Test
	void shouldReportALostLeaseWhenTheLockVanishes() throws Exception {
		LockHandle held = this.template.acquire(
				LockRequest.builder("watchdog").key("vanishing").lease(Duration.ofMillis(900)).autoRenew(true).build());
		redis.server().command("DEL", this.template.lockKey(LockName.of("watchdog", "vanishing")));
		await().atMost(Duration.ofSeconds(2)).until(() -> !this.lost.isEmpty());
		assertThat(this.lost).containsExactly(LockName.of("watchdog", "vanishing"));
		assertThat(held.isHeld()).isFalse();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
		assertThat(this.lost).as("reported once").hasSize(1);
	}

	@Test
	void shouldRideOutAStallShorterThanTheLease() throws Exception {
		try (LockHandle held = this.template.acquire(
				LockRequest.builder("watchdog").key("stall").lease(Duration.ofMillis(1500)).autoRenew(true).build())) {
			redis.managedServer().pause();
			Thread.sleep(800);
			redis.managedServer().resume();
			Thread.sleep(1500);
			assertThat(held.isHeld()).isTrue();
		}
		assertThat(this.lost).isEmpty();
	}

	@Test
	void shouldReportLossOnceRenewalsFailedUntilTheLeaseEnded() throws Exception {
		LockHandle held = this.template
			.acquire(LockRequest.builder("watchdog").key("down").lease(Duration.ofMillis(900)).autoRenew(true).build());
		long start = System.nanoTime();
		redis.managedServer().stop();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.lost.isEmpty());
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not reported before the lease would have ended")
			.isGreaterThan(Duration.ofMillis(800));
		assertThat(held.isHeld()).isFalse();
		redis.managedServer().start();
	}

	@Test
	void shouldLetAnyThreadPresentingACustomOwnerReleaseTheLock() throws Exception {
		LockRequest request = LockRequest.builder("jobs").key("42").owner("job-42-secret").build();
		long token = this.executor.submit(() -> this.template.acquire(request).fencingToken()).get(5, TimeUnit.SECONDS);
		assertThat(this.template.isLocked("jobs", "42")).isTrue();
		assertThat(this.template.findHeld(LockName.of("jobs", "42"), "someone-else")).isEmpty();
		assertThat(this.otherProcess.tryAcquire(request.toBuilder().owner("other").waitTime(Duration.ZERO).build()))
			.isEmpty();
		// Another thread, even another process, presenting the owner holds the lock.
		LockHandle again = this.otherProcess.acquire(request);
		assertThat(again.fencingToken()).isEqualTo(token);
		again.close();
		assertThat(this.template.isLocked("jobs", "42")).isTrue();
		LockHandle found = this.otherProcess.findHeld(LockName.of("jobs", "42"), "job-42-secret").orElseThrow();
		assertThat(found.fencingToken()).isEqualTo(token);
		assertThat(found.isHeld()).isTrue();
		found.extend(Duration.ofSeconds(20));
		found.close();
		assertThat(this.template.isLocked("jobs", "42")).isFalse();
	}

	@Test
	void shouldGiveAFoundHoldNoLongerADeadlineThanTheLeaseRedisHas() throws Exception {
		LockRequest request = LockRequest.builder("jobs")
			.key("short")
			.owner("job-short")
			.lease(Duration.ofMillis(700))
			.build();
		LockHandle held = this.executor.submit(() -> this.template.acquire(request)).get(5, TimeUnit.SECONDS);
		Thread.sleep(400);
		LockHandle found = this.otherProcess.findHeld(LockName.of("jobs", "short"), "job-short").orElseThrow();
		// The default lease is 1 s, but Redis has about 300 ms left: the handle must not
		// claim more.
		assertThat(found.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(310));
		found.close();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
	}

	private static long scriptCalls() {
		return redis.server().commandCalls("evalsha") + redis.server().commandCalls("fcall");
	}

}
