package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockName;
import io.github.distributedlock.leader.DefaultCandidate;
import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.LeaderTimings;
import io.github.distributedlock.leader.PublishedLeader;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leaders publishing who they are in {@link RedisLeaderDirectory}, read by another
 * instance, against a real redis-server. Each instance has a template, connections and a
 * directory of its own, as a process would. Leases are 900 ms, so a leader writes every
 * 300 ms.
 */
@ExtendWith(RedisServerExtension.class)
class RedisLeaderDirectoryTests {

	private static final Duration LEASE = Duration.ofMillis(900);

	private static final LeaderTimings TIMINGS = new LeaderTimings(LEASE, Duration.ofMillis(200),
			Duration.ofMillis(100), Duration.ofMillis(100));

	private static final Duration BLOCK = Duration.ofSeconds(20);

	private final List<AutoCloseable> opened = new ArrayList<>();

	private RedisServer server;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.server = server;
	}

	@AfterEach
	void close() throws Exception {
		for (int i = this.opened.size() - 1; i >= 0; i--) {
			this.opened.get(i).close();
		}
	}

	@Test
	void shouldShowTheLeaderToAnotherInstanceWithItsTermAndNoOwner() {
		Instance leader = instance();
		LeaderInitiator initiator = leader.contend("node-a:8080", "shown");
		LeaderContext term = await().atMost(BLOCK)
			.until(initiator::getContext, (found) -> found.isPresent() && found.get().isLeader())
			.orElseThrow();
		Instance follower = instance();
		PublishedLeader shown = await().atMost(BLOCK)
			.until(() -> follower.directory().find("shown"), Optional::isPresent)
			.orElseThrow();
		assertThat(shown).isEqualTo(new PublishedLeader("shown", "node-a:8080", term.fencingToken(),
				Instant.ofEpochMilli(term.since().toEpochMilli())));
		// All that is stored: the token, the start and the instance's id.
		String key = LockKeys.leader(leader.template().lockKey(LockName.of(LeaderInitiator.LOCK_SCOPE, "shown")));
		assertThat(this.server.command("GET", key))
			.isEqualTo(term.fencingToken() + ":" + term.since().toEpochMilli() + ":node-a:8080");
		assertThat((Long) this.server.command("PTTL", key)).isPositive().isLessThanOrEqualTo(LEASE.toMillis());
	}

	@Test
	void shouldKeepTheLeaderPublishedForLongerThanOneLease() {
		LeaderInitiator initiator = instance().contend("a", "kept");
		await().atMost(BLOCK).until(initiator::isLeader);
		Instance follower = instance();
		await().atMost(BLOCK).until(() -> follower.directory().find("kept"), Optional::isPresent);
		long token = initiator.getContext().orElseThrow().fencingToken();
		sleep(LEASE.multipliedBy(3));
		assertThat(initiator.getContext().orElseThrow().fencingToken()).as("still the same term").isEqualTo(token);
		assertThat(follower.directory().find("kept")).map(PublishedLeader::fencingToken).contains(token);
	}

	@Test
	void shouldShowNoLeaderWhoseLockIsGoneAndTheNextLeaderOnceGranted() {
		LeaderInitiator first = instance().contend("a", "next");
		await().atMost(BLOCK).until(first::isLeader);
		Instance follower = instance();
		await().atMost(BLOCK).until(() -> follower.directory().find("next"), Optional::isPresent);
		first.stop();
		// The stopped leader's value is still in Redis, but its lock is not.
		assertThat(follower.directory().find("next")).isEmpty();
		LeaderInitiator second = instance().contend("b", "next");
		await().atMost(BLOCK).until(second::isLeader);
		long token = second.getContext().orElseThrow().fencingToken();
		assertThat(await().atMost(BLOCK).until(() -> follower.directory().find("next"), Optional::isPresent))
			.map(PublishedLeader::instanceId)
			.contains("b");
		assertThat(follower.directory().find("next")).map(PublishedLeader::fencingToken).contains(token);
	}

	@Test
	void shouldShowNothingForAValueOfAnotherTerm() {
		assertThat(RedisLeaderDirectory.parse("r", "17:1000:host:1", "17"))
			.isEqualTo(new PublishedLeader("r", "host:1", 17, Instant.ofEpochMilli(1000)));
		assertThat(RedisLeaderDirectory.parse("r", "16:1000:host:1", "17")).isNull();
		assertThat(RedisLeaderDirectory.parse("r", null, "17")).isNull();
		assertThat(RedisLeaderDirectory.parse("r", "garbage", "17")).isNull();
	}

	private Instance instance() {
		LettuceConnectionFactory factory = RedisConnections.standalone(this.server);
		RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.defaults(LockDefaults.STANDARD.withLease(LEASE))
			.build();
		RedisLeaderDirectory directory = new RedisLeaderDirectory(template);
		this.opened.add(factory::destroy);
		this.opened.add(template::close);
		this.opened.add(directory);
		return new Instance(template, directory, this.opened);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	record Instance(RedisLockTemplate template, RedisLeaderDirectory directory, List<AutoCloseable> opened) {

		LeaderInitiator contend(String id, String role) {
			LeaderInitiator initiator = new LeaderInitiator(this.template, new DefaultCandidate(id, role), TIMINGS);
			initiator.setLeaderDirectory(this.directory);
			this.opened.add(initiator::stop);
			initiator.start();
			return initiator;
		}

	}

}
