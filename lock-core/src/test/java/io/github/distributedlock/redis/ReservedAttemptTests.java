package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A head asleep with its request filed, whose lock a release of another process reserves
 * for that request, takes it with its own attempt sent from the thread that hears the
 * reservation (docs/design/waiting-and-hand-off.md, "Session 22"); a message is still
 * only a hint, and Redis's reply decides.
 */
class ReservedAttemptTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldTakeTheReservationWithTheAttemptSentAsItIsHeard() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory other = RedisConnections.standalone(server);
		try (RedisLockTemplate holder = RedisLockTemplate.builder(other).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			String key = waiter.lockKey(LockName.of("reserved", "taken"));
			LockHandle held = holder.acquire(request("taken"));
			Future<LockHandle> head = this.connected.executor().submit(() -> waiter.acquire(request("taken")));
			awaitAsleep(waiter);
			server.resetStats();
			held.close();
			try (LockHandle handle = head.get(10, TimeUnit.SECONDS)) {
				assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
				assertThat(hashField(key, "token")).isEqualTo(Long.toString(handle.fencingToken()));
				assertThat(waiter.reservedAttempts()).as("attempts sent as the reservation was heard").isEqualTo(1);
				// The release and the head's one attempt: the head sent nothing itself.
				assertThat(scripts(server)).isEqualTo(2);
			}
			assertThat(server.command("EXISTS", key)).isEqualTo(0L);
		}
		finally {
			other.destroy();
		}
	}

	@Test
	void shouldNotTakeALockHeldByAnotherOnAForgedReservationMessage() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory other = RedisConnections.standalone(server);
		try (RedisLockTemplate holder = RedisLockTemplate.builder(other).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			String key = waiter.lockKey(LockName.of("reserved", "forged"));
			LockHandle held = holder.acquire(request("forged"));
			Future<LockHandle> head = this.connected.executor().submit(() -> waiter.acquire(request("forged")));
			awaitAsleep(waiter);
			List<?> requests = (List<?>) server.command("ZRANGE", key + ":requests", "0", "-1");
			assertThat(requests).hasSize(1);
			String member = String.valueOf(requests.get(0));
			server.resetStats();
			// Twice: a forged, duplicated or replayed message costs the head at most an
			// attempt each, and never a hold.
			for (int i = 0; i < 2; i++) {
				assertThat(server.command("PUBLISH", key + ":released", "reserved:" + member)).isEqualTo(1L);
				Thread.sleep(300);
			}
			assertThat(head).isNotDone();
			assertThat(hashField(key, "token")).isEqualTo(Long.toString(held.fencingToken()));
			assertThat(waiter.reservedAttempts()).isZero();
			assertThat(scripts(server)).as("attempts after the forged messages").isBetween(1L, 4L);
			held.close();
			try (LockHandle handle = head.get(10, TimeUnit.SECONDS)) {
				assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
				assertThat(hashField(key, "token")).isEqualTo(Long.toString(handle.fencingToken()));
			}
			assertThat(server.command("EXISTS", key)).isEqualTo(0L);
		}
		finally {
			other.destroy();
		}
	}

	@Test
	void shouldLetTheHeadAttemptItselfWithoutASharedConnection() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory other = RedisConnections.standalone(server);
		LettuceConnectionFactory unshared = RedisConnections.standalone(server);
		unshared.setShareNativeConnection(false);
		try (RedisLockTemplate holder = RedisLockTemplate.builder(other).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(unshared).build()) {
			LockHandle held = holder.acquire(request("unshared"));
			Future<LockHandle> head = this.connected.executor().submit(() -> waiter.acquire(request("unshared")));
			awaitAsleep(waiter);
			held.close();
			try (LockHandle handle = head.get(10, TimeUnit.SECONDS)) {
				assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
				assertThat(waiter.reservedAttempts()).isZero();
			}
		}
		finally {
			other.destroy();
			unshared.destroy();
		}
	}

	private static void awaitAsleep(RedisLockTemplate waiter) throws InterruptedException {
		// The head files its request and sleeps with its offer out a moment after it
		// waits.
		await().atMost(Duration.ofSeconds(5)).until(() -> waiter.waitingThreads() == 1);
		Thread.sleep(300);
	}

	private static long scripts(RedisServer server) {
		Map<String, Long> calls = server.commandCalls();
		return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
	}

	private static String hashField(String key, String field) {
		return String.valueOf(redis.server().command("HGET", key, field));
	}

	private static LockRequest request(String key) {
		return LockRequest.builder("reserved")
			.key(key)
			.lease(Duration.ofSeconds(10))
			.waitTime(Duration.ofSeconds(20))
			.build();
	}

}
