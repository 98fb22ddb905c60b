package io.github.distributedlock.chaos.input;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.chaos.ChaosNotes;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Multi-locks that are empty, mixed, or 10,000 locks long.
 */
class MultiLockInputTests {

	private static final int HUGE = 10_000;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static LettuceConnectionFactory factory;

	private static RedisLockTemplate template;

	private static RedisLockTemplate otherProcess;

	@BeforeAll
	static void start() {
		// One script takes all 10,000 locks: it can run past the usual 2 s command
		// timeout on a busy machine, and a
		// timed-out script still takes them all in Redis, held until their lease ends.
		factory = Connections
			.start(new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(30)).build()));
		template = RedisLockTemplate.builder(factory).build();
		otherProcess = RedisLockTemplate.builder(factory).build();
	}

	@AfterAll
	static void stop() {
		template.close();
		otherProcess.close();
		factory.destroy();
	}

	@Test
	void shouldRefuseAnEmptyOrMixedMultiLock() {
		assertThatIllegalArgumentException().isThrownBy(() -> template.acquireAll(List.of()))
			.withMessage("acquireAll needs at least one lock request");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> template.acquireAll(List.of(LockRequest.of("multi", "1"),
					LockRequest.builder("multi").key("2").mode(LockMode.READ).build())))
			.withMessageStartingWith("Lock 'multi:2': a multi-lock takes")
			.withMessageContaining("not read locks");
	}

	@Test
	void shouldTakeAndReleaseTenThousandLocksAllOrNothing() {
		List<LockRequest> requests = requests("huge", HUGE);
		long start = System.nanoTime();
		LockHandle all = template.acquireAll(requests);
		long acquired = System.nanoTime();
		assertThat(all.locks()).hasSize(HUGE);
		assertThat(LockNameInputTests.keysOf(redis.server(), "lock:{huge:*}")).hasSize(HUGE);
		assertThat(otherProcess.tryAcquire(LockRequest.builder("huge").key("9999").waitTime(Duration.ZERO).build()))
			.isEmpty();
		all.close();
		long released = System.nanoTime();
		assertThat(LockNameInputTests.keysOf(redis.server(), "lock:{huge:*}")).isEmpty();
		ChaosNotes.note("Bad input", "- acquireAll of " + HUGE + " locks on one standalone Redis: acquired in "
				+ (acquired - start) / 1_000_000 + " ms (one script), released in " + (released - acquired) / 1_000_000
				+ " ms (one release script per lock), with a 30 s command timeout.");
	}

	@Test
	void shouldTakeNoneOfTenThousandLocksWhenOneIsHeld() {
		List<LockRequest> requests = new ArrayList<>(requests("blocked", HUGE));
		// Duplicates are taken once.
		requests.addAll(requests("blocked", 100));
		try (LockHandle blocker = otherProcess.acquire(LockRequest.of("blocked", "5000"))) {
			List<LockRequest> once = requests.stream()
				.map((request) -> request.toBuilder().waitTime(Duration.ZERO).build())
				.toList();
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> template.acquireAll(once))
				.withMessageStartingWith("Lock 'blocked:5000': not acquired");
			assertThat(LockNameInputTests.keysOf(redis.server(), "lock:{blocked:*}")).as("only the blocker's lock")
				.containsExactly(template.lockKey(blocker.name()));
		}
		try (LockHandle all = template.acquireAll(requests)) {
			assertThat(all.locks()).hasSize(HUGE);
		}
	}

	private static List<LockRequest> requests(String scope, int count) {
		List<LockRequest> requests = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			requests.add(LockRequest.builder(scope).key(Integer.toString(i)).lease(Duration.ofSeconds(60)).build());
		}
		return requests;
	}

}
