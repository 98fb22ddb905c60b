package io.github.distributedlock.redis;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
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
 * Holds whose handles are never closed leave the template once their leases end (issue
 * 15), without turning a later acquisition into a wrong re-entry or take-over.
 */
class AbandonedHoldsTests {

	private static final int HOLDS = 10_000;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private RedisLockTemplate template;

	private final ExecutorService executor = Executors.newFixedThreadPool(8);

	@BeforeEach
	void connect() {
		this.factory = RedisConnections.standalone(redis.server());
		this.template = RedisLockTemplate.builder(this.factory).build();
	}

	@AfterEach
	void disconnect() {
		this.executor.shutdownNow();
		this.template.close();
		this.factory.destroy();
	}

	@Test
	void shouldForgetTenThousandAbandonedHoldsOnceTheirLeasesEnd() throws Exception {
		List<WeakReference<LockHandle>> abandoned = abandon("once", Duration.ofSeconds(2));
		assertThat(this.template.heldLocks()).as("live while their leases run").isNotEmpty();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(this.template.heldLocks()).isEmpty();
			assertThat(TemplateHolds.count(this.template)).as("owner and lock pairs counted").isZero();
		});
		assertThat(TemplateHolds.count(this.template)).isZero();
	}

	@Test
	void shouldKeepMemoryFlatOverRoundsOfAbandonedHolds() throws Exception {
		for (int round = 0; round < 3; round++) {
			List<WeakReference<LockHandle>> abandoned = abandon("round" + round, Duration.ofMillis(500));
			// No read of the holds here: the periodic sweep alone must let go of them.
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				System.gc();
				return abandoned.stream().allMatch((handle) -> handle.get() == null);
			});
			assertThat(TemplateHolds.count(this.template)).as("round %d", round).isZero();
			assertThat(this.template.heldLocks()).isEmpty();
		}
	}

	@Test
	void shouldReportTheLostLeaseWhenAnAbandonedHandleIsClosedLater() throws Exception {
		LockHandle abandoned = this.template.acquire(request("late").lease(Duration.ofMillis(300)).build());
		await().atMost(Duration.ofSeconds(5)).until(() -> TemplateHolds.count(this.template) == 0);
		try (LockHandle next = this.template.acquire(request("late").build())) {
			assertThat(next.fencingToken()).as("a new hold, not a take-over").isNotEqualTo(abandoned.fencingToken());
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(abandoned::close);
			assertThat(next.isHeld()).isTrue();
			assertThat(this.template.heldLocks()).hasSize(1);
		}
		assertThat(this.template.isLocked("abandoned", "late")).isFalse();
	}

	@Test
	void shouldCountAReentryOnALockWhoseAbandonedInnerHoldIsStillInRedis() throws Exception {
		LockHandle outer = this.template.acquire(request("shared").lease(Duration.ofSeconds(30)).build());
		LockHandle inner = this.template.acquire(request("shared").lease(Duration.ofMillis(200)).build());
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		// Leaves the inner hold's count in Redis, under the outer hold's lease.
		outer.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.template.heldLocks().isEmpty());
		try (LockHandle again = this.template.acquire(request("shared").lease(Duration.ofSeconds(30)).build())) {
			// Counted as a re-entry, not taken over as one fresh hold: so the late
			// release of the
			// abandoned hold ends only its own count, and this hold stays.
			inner.close();
			assertThat(again.isHeld()).isTrue();
		}
		assertThat(this.template.isLocked("abandoned", "shared")).isFalse();
	}

	@Test
	void shouldForgetALostAutoRenewedHold() {
		LockHandle held = this.template
			.acquire(request("vanishing").lease(Duration.ofMillis(900)).autoRenew(true).build());
		redis.server().command("DEL", this.template.lockKey(LockName.of("abandoned", "vanishing")));
		await().atMost(Duration.ofSeconds(5)).until(() -> TemplateHolds.count(this.template) == 0);
		assertThat(this.template.heldLocks()).isEmpty();
		assertThat(held.remainingLease()).isEqualTo(Duration.ZERO);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
	}

	/**
	 * Take {@link #HOLDS} locks and drop the handles, as a caller that lets leases run
	 * out.
	 */
	private List<WeakReference<LockHandle>> abandon(String prefix, Duration lease) throws Exception {
		List<Future<List<WeakReference<LockHandle>>>> parts = new ArrayList<>();
		int threads = 8;
		for (int t = 0; t < threads; t++) {
			int first = t;
			parts.add(this.executor.submit(() -> {
				List<WeakReference<LockHandle>> handles = new ArrayList<>();
				for (int i = first; i < HOLDS; i += threads) {
					handles.add(
							new WeakReference<>(this.template.acquire(request(prefix + "-" + i).lease(lease).build())));
				}
				return handles;
			}));
		}
		List<WeakReference<LockHandle>> all = new ArrayList<>(HOLDS);
		for (Future<List<WeakReference<LockHandle>>> part : parts) {
			all.addAll(part.get());
		}
		assertThat(all).hasSize(HOLDS);
		return all;
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("abandoned").key(key).waitTime(Duration.ZERO);
	}

}
