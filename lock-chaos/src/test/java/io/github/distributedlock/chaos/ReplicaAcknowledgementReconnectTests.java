package io.github.distributedlock.chaos;

import java.time.Duration;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code replicaAcknowledgements} when the connection is lost between the lock write and
 * the {@code WAIT}, and the client reconnects to another server, as in a Sentinel
 * failover. Redis counts acknowledgements per connection and per server, so a
 * {@code WAIT} that Lettuce re-sends on the new connection says nothing about the lock
 * write.
 * <p>
 * The old master has no replica, so no lock written there can ever be acknowledged; the
 * new master has a replica in sync. The client reaches them through a proxy that the test
 * re-targets.
 */
class ReplicaAcknowledgementReconnectTests {

	private RedisProcess oldMaster;

	private RedisProcess newMaster;

	private RedisProcess replica;

	private ChaosProxy proxy;

	private LettuceConnectionFactory factory;

	private LettuceConnectionFactory rivalFactory;

	@BeforeEach
	void start() throws Exception {
		this.oldMaster = RedisServers.launch();
		this.newMaster = RedisServers.launch("--repl-diskless-sync-delay", "0");
		this.replica = RedisServers.launch("--replicaof", "127.0.0.1", Integer.toString(this.newMaster.port()));
		// "online" comes before the stream of writes starts: after a diskless sync, Redis
		// 7 starts it on the
		// replica's first REPLCONF ACK, up to a second later. Wait until a write is
		// acknowledged.
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			this.newMaster.command("SET", "replication-probe", "1");
			return Long.valueOf(1).equals(this.newMaster.command("WAIT", "1", "100"));
		});
		this.newMaster.command("DEL", "replication-probe");
		this.proxy = ChaosProxy.start(this.oldMaster.port());
		this.factory = Connections.standalone(this.proxy.port());
		this.rivalFactory = Connections.standalone(this.newMaster.port());
	}

	@AfterEach
	void stop() {
		this.factory.destroy();
		this.rivalFactory.destroy();
		this.proxy.close();
		this.replica.close();
		this.newMaster.close();
		this.oldMaster.close();
	}

	@Test
	void shouldRefuseALockThatNoReplicaAcknowledged() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.factory)
			.replicaAcknowledgements(1, Duration.ofMillis(200))
			.build()) {
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquire(LockRequest.of("acked", "1")))
				.withMessageContaining("acked:1")
				.withMessageContaining("0 of 1 replicas");
			assertThat(template.isLocked("acked", "1")).as("released again").isFalse();
		}
	}

	@Test
	void shouldHaveReleasedARefusedLockWhenItSaysSo() {
		// The release travels through the delaying proxy; the check asks the server
		// directly, so it runs first unless the refusal waited for the release.
		this.proxy.latency(Duration.ofMillis(20));
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.factory)
			.replicaAcknowledgements(1, Duration.ofMillis(100))
			.build()) {
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquire(LockRequest.of("acked", "4")))
				.withMessageContaining("0 of 1 replicas")
				.withMessageContaining("released it");
			assertThat(this.oldMaster.command("EXISTS", template.lockKey(LockName.of("acked", "4"))))
				.as("released before the refusal")
				.isEqualTo(0L);
		}
	}

	@Test
	void shouldRefuseALockThatNoReplicaAcknowledgedWhenTheClientReconnectsToAnotherServerBeforeTheWait() {
		refuseAfterReconnect(false);
	}

	@Test
	void shouldRefuseALockThatNoReplicaAcknowledgedWhenTheClientReconnectsAfterEarlierChecks() {
		// Earlier checks taught the template the old connection, so the first WAIT is
		// trusted if it ran there.
		refuseAfterReconnect(true);
	}

	private void refuseAfterReconnect(boolean warm) {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.factory)
			.replicaAcknowledgements(1, Duration.ofMillis(200))
			.build(); RedisLockTemplate rival = RedisLockTemplate.builder(this.rivalFactory).build()) {
			// Connected to the old master; the next connection goes to the new one.
			assertThat(template.isLocked("acked", "2")).isFalse();
			if (warm) {
				assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> template.acquire(LockRequest.of("acked", "warm")))
					.withMessageContaining("0 of 1 replicas");
			}
			this.proxy.retarget(this.newMaster.port());
			this.proxy.dropConnectionsOnNext("WAIT");
			LockHandle believed = null;
			try {
				believed = template
					.acquire(LockRequest.builder("acked").key("2").lease(Duration.ofSeconds(30)).build());
			}
			catch (LockAccessException expected) {
				// What must happen: no replica acknowledged the write, which only the old
				// master has.
				assertThat(expected).hasMessageContaining("acked:2").hasMessageContaining("no longer had it");
			}
			try (LockHandle second = rival.acquire(LockRequest.builder("acked").key("2").build())) {
				assertThat(believed).as("a lock believed replicated while %s holds it on the new master", second)
					.isNull();
			}
			// Once moved, acquisitions on the new master are acknowledged by its replica.
			try (LockHandle third = template.acquire(LockRequest.of("acked", "3"))) {
				assertThat(this.replica.command("HGET", template.lockKey(third.name()), "owner")).isNotNull();
			}
		}
	}

}
