package io.github.distributedlock.chaos;

import java.time.Duration;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code replicaAcknowledgements} when the connection is lost between the lock write and the {@code WAIT}, and the
 * client reconnects to another server, as in a Sentinel failover. Redis counts acknowledgements per connection and
 * per server, so a {@code WAIT} that Lettuce re-sends on the new connection says nothing about the lock write.
 * <p>
 * The old master has no replica, so no lock written there can ever be acknowledged; the new master has a replica in
 * sync. The client reaches them through a proxy that the test re-targets.
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
		await().atMost(Duration.ofSeconds(20))
			.until(() -> String.valueOf(this.newMaster.command("INFO", "replication")).contains("state=online"));
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
	@Disabled("engine bug: the WAIT that follows a lock write can run on a new connection to another server after a "
			+ "reconnect (Lettuce re-sends commands in flight), where it acknowledges nothing about the write; the "
			+ "lock is then believed replicated although it exists only on the old master. FailoverTests shows it as "
			+ "overlapping holds among workers with replicaAcknowledgements(1, 100 ms)")
	void shouldRefuseALockThatNoReplicaAcknowledgedWhenTheClientReconnectsToAnotherServerBeforeTheWait() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.factory)
			.replicaAcknowledgements(1, Duration.ofMillis(200))
			.build(); RedisLockTemplate rival = RedisLockTemplate.builder(this.rivalFactory).build()) {
			// Connected to the old master; the next connection goes to the new one.
			assertThat(template.isLocked("acked", "2")).isFalse();
			this.proxy.retarget(this.newMaster.port());
			this.proxy.dropConnectionsOnNext("WAIT");
			LockHandle believed = null;
			try {
				believed = template.acquire(LockRequest.builder("acked").key("2").lease(Duration.ofSeconds(30)).build());
			}
			catch (LockAccessException expected) {
				// What must happen: no replica acknowledged the write, which only the old master has.
			}
			try (LockHandle second = rival.acquire(LockRequest.builder("acked").key("2").build())) {
				assertThat(believed).as("a lock believed replicated while %s holds it on the new master", second)
					.isNull();
			}
		}
	}

}
