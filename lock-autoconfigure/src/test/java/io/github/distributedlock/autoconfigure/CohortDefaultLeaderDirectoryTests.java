package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.leader.Candidate;
import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderDirectory;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.LeaderTimings;
import io.github.distributedlock.leader.PublishedLeader;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the starter's defaults (cohorts on), four candidates of one role in one
 * application (the application's own {@code LeaderInitiator}s on the auto-configured
 * template), whose leaders yield quickly. A term passed in a cohort showed the block's
 * next token while Redis kept the cohort's first, and the leader directory (so the
 * leaders endpoint of every other instance) showed no leader. Leader terms are never
 * passed in memory now: each is a hold Redis granted, and the directory shows it.
 */
@ExtendWith(RedisServerExtension.class)
class CohortDefaultLeaderDirectoryTests {

	private static final LeaderTimings TIMINGS = new LeaderTimings(Duration.ofSeconds(10), Duration.ofSeconds(2),
			Duration.ofSeconds(5), Duration.ofMillis(100));

	@Test
	void shouldPublishALeaderWhoseTermWasPassedInACohort(RedisServer server) {
		TestRedis.contextRunner(server)
			.withConfiguration(AutoConfigurations.of(DistributedLockLeaderAutoConfiguration.class))
			.run((context) -> {
				LockTemplate locks = context.getBean(LockTemplate.class);
				LeaderDirectory directory = context.getBean(LeaderDirectory.class);
				for (int run = 0; run < 2; run++) {
					String role = "passed-" + run;
					Term keeper = new Term();
					List<String> grants = elect(locks, directory, role, keeper);
					assertThat(keeper.id).as("the fourth leader, in %s", grants).isNotNull();
					assertThat(keeper.passed).as("a term passed in memory, in %s", grants).isFalse();
					assertThat(keeper.shown).as("the directory, while %s leads with token %d", keeper.id, keeper.token)
						.hasValueSatisfying((leader) -> {
							assertThat(leader.instanceId()).isEqualTo(keeper.id);
							assertThat(leader.fencingToken()).isEqualTo(keeper.token);
						});
				}
			});
	}

	/**
	 * Four candidates; the first leader yields after 300 ms (all others in line by then),
	 * the second at once, the third after 8 ms (its term published), the fourth keeps it.
	 */
	private static List<String> elect(LockTemplate locks, LeaderDirectory directory, String role, Term keeper)
			throws Exception {
		AtomicInteger grants = new AtomicInteger();
		ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
		AtomicReference<Long> third = new AtomicReference<>();
		List<LeaderInitiator> initiators = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			String id = role + "-c" + i;
			LeaderInitiator initiator = new LeaderInitiator(locks, new Candidate() {

				@Override
				public String getRole() {
					return role;
				}

				@Override
				public String getId() {
					return id;
				}

				@Override
				public void onGranted(LeaderContext term) {
					int n = grants.incrementAndGet();
					log.add(n + ":" + id + ":" + term.fencingToken());
					if (n == 1) {
						LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
						term.yieldLeadership();
					}
					else if (n == 2) {
						term.yieldLeadership();
					}
					else if (n == 3) {
						third.set(term.fencingToken());
						LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(8));
						term.yieldLeadership();
					}
					else if (n == 4) {
						keeper.id = id;
						keeper.token = term.fencingToken();
						keeper.passed = third.get() != null && term.fencingToken() == third.get() + 1;
					}
				}

				@Override
				public void onRevoked(LeaderContext term) {
				}

			}, TIMINGS);
			initiator.setLeaderDirectory(directory);
			initiators.add(initiator);
		}
		initiators.forEach(LeaderInitiator::start);
		try {
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (keeper.id == null && System.nanoTime() < until) {
				Thread.sleep(10);
			}
			// The leader writes its term at once and every lease / 3; give it time.
			Thread.sleep(1500);
			keeper.shown = directory.find(role);
			return List.copyOf(log);
		}
		finally {
			initiators.forEach(LeaderInitiator::stop);
		}
	}

	static final class Term {

		volatile String id;

		volatile long token;

		volatile boolean passed;

		volatile Optional<PublishedLeader> shown = Optional.empty();

	}

}
