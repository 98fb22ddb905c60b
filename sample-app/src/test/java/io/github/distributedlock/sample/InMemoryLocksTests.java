package io.github.distributedlock.sample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.inmemory.AutoConfigureInMemoryLocks;
import io.github.distributedlock.inmemory.InMemoryLockTemplate;
import io.github.distributedlock.sample.DeploymentService.Deployment;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A unit test of the sample's locked code without any Redis:
 * {@code @AutoConfigureInMemoryLocks} (from {@code distributed-lock-test}) gives the
 * context an in-memory {@link LockTemplate}. Nothing listens on the Redis port configured
 * here, so a Redis connection would fail; the deployment log, which the sample keeps in
 * Redis as application data, is a mock.
 */
@SpringBootTest(properties = { "spring.data.redis.port=1", "sample.deploy-millis=50" })
@AutoConfigureInMemoryLocks
class InMemoryLocksTests {

	@Autowired
	LockTemplate locks;

	@Autowired
	DeploymentService deployments;

	@MockitoBean
	DeploymentLog log;

	@Autowired
	RedisInUse redisInUse;

	@Test
	void shouldRunTheLockedMethodsOnTheInMemoryTemplate() {
		assertThat(this.locks).isInstanceOf(InMemoryLockTemplate.class);
		assertThat(this.redisInUse.describe())
			.isEqualTo("Locks are kept in memory (distributed-lock.in-memory), not in Redis");
		Deployment deployment = this.deployments.deploy("web-1");
		assertThat(deployment.fencingToken()).isPositive();
		assertThat(this.locks.isLocked("server_access", "web-1")).as("released when the method returned").isFalse();
	}

	@Test
	void shouldDeployToOneServerAtATime() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<Future<Deployment>> calls = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				calls.add(executor.submit(() -> this.deployments.deploy("web-2")));
			}
			List<Deployment> done = new ArrayList<>();
			for (Future<Deployment> call : calls) {
				done.add(call.get(30, TimeUnit.SECONDS));
			}
			done.sort(Comparator.comparingLong(Deployment::start));
			for (int i = 1; i < done.size(); i++) {
				assertThat(done.get(i).start()).as("no overlap").isGreaterThanOrEqualTo(done.get(i - 1).end());
				assertThat(done.get(i).fencingToken()).isGreaterThan(done.get(i - 1).fencingToken());
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void shouldSkipTheScheduledReportWhileAnotherInstanceHoldsItsLock(@Autowired ReportJob reportJob) {
		InMemoryLockTemplate otherInstance = ((InMemoryLockTemplate) this.locks).anotherProcess();
		try (var held = otherInstance.acquire(LockRequest.of("daily-report", null))) {
			int runs = reportJob.runs();
			reportJob.run();
			assertThat(reportJob.runs()).as("skipped: the lock was taken").isEqualTo(runs);
		}
		int runs = reportJob.runs();
		reportJob.run();
		assertThat(reportJob.runs()).isGreaterThan(runs);
	}

}
