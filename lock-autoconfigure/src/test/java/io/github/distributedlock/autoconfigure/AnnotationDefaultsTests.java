package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.Flag;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Attributes left out of {@code @DistributedLock} come from {@code distributed-lock.*}.
 */
@ExtendWith(RedisServerExtension.class)
class AnnotationDefaultsTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server)
			.withPropertyValues("distributed-lock.wait-time=0", "distributed-lock.lease=3s",
					"distributed-lock.watchdog.enabled=false")
			.withBean(Reports.class);
	}

	@Test
	void shouldApplyThePropertiesWhenAttributesAreLeftOut() {
		this.contextRunner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			Duration remaining = reports.remainingLease();
			assertThat(remaining).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3));
			assertThat(reports.ownLease()).isGreaterThan(Duration.ofSeconds(3));
			RedisLockTemplate otherProcess = RedisLockTemplate.builder(context.getBean(RedisConnectionFactory.class))
				.build();
			try (LockHandle held = otherProcess.acquire(LockRequest.of("Reports.remainingLease", null))) {
				long start = System.nanoTime();
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(reports::remainingLease);
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a zero wait tries once")
					.isLessThan(Duration.ofSeconds(2));
			}
			finally {
				otherProcess.close();
			}
		});
	}

	@Test
	void shouldLetAFlagOverrideThePropertyAndDefaultLeaveItInForce() {
		this.contextRunner.withPropertyValues("distributed-lock.reentrant=false").run((context) -> {
			Reports reports = context.getBean(Reports.class);
			assertThatExceptionOfType(LockSelfDeadlockException.class)
				.isThrownBy(() -> reports.inLedger(() -> reports.inLedger(() -> {
				})));
			boolean[] ranInside = new boolean[1];
			reports.inLedgerAgain(() -> reports.inLedgerAgain(() -> ranInside[0] = true));
			assertThat(ranInside[0]).as("Flag.TRUE re-entered").isTrue();
		});
	}

	static class Reports {

		@DistributedLock(scope = "ledger")
		public void inLedger(Runnable inside) {
			inside.run();
		}

		@DistributedLock(scope = "ledger", reentrant = Flag.TRUE)
		public void inLedgerAgain(Runnable inside) {
			inside.run();
		}

		@DistributedLock
		public Duration remainingLease() {
			return LockContext.current().remainingLease();
		}

		@DistributedLock(expire = 20)
		public Duration ownLease() {
			return LockContext.current().remainingLease();
		}

	}

}
