package io.github.distributedlock.redis;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An adversarial review of the attempt a thread that hears a head's reservation sends on
 * the head's behalf (docs/design/waiting-and-hand-off.md, "Session 22"): a head
 * interrupted while that attempt waits for a stalled Redis, a message heard twice, and a
 * factory whose shared connection was reset.
 */
class ReservedAttemptReviewTests {

	private static final long PAUSE_MILLIS = 9000;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	/**
	 * The lock is reserved for the head's request and Redis stalls right after the
	 * message: the attempt sent for the head waits for Redis. One interrupt must still
	 * end the acquisition after about one command timeout, as it does when the head sends
	 * that attempt itself (InterruptDuringStallTests).
	 */
	@Test
	void aHeadInterruptedWhileItsReservedAttemptStallsEndsAfterOneCommandTimeout() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate waiter = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			String key = waiter.lockKey(LockName.of("review", "stall"));
			// Its scripts are loaded.
			waiter.acquire(request("stall").build()).close();
			// Another process's hold: the waiter heads its line, files its request and
			// sleeps.
			server.command("HSET", key, "owner", "other", "holds", "1", "token", "1", "queued", "1");
			server.command("PEXPIRE", key, "20000");
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			Thread thread = new Thread(() -> {
				try {
					waiter.acquire(request("stall").waitTime(Duration.ofSeconds(60)).build()).close();
				}
				catch (Throwable ex) {
					thrown.set(ex);
				}
			});
			thread.start();
			String member = awaitRequest(key);
			Thread.sleep(300);
			// What release.lua does for it, the message, and at once a stall: the
			// attempt sent as the message is heard waits for Redis.
			long paused = System.nanoTime();
			pipeline(server, List.of("HSET", key, "owner", "", "reserved", member, "holds", "0"),
					List.of("HDEL", key, "#other"), List.of("ZREM", LockKeys.requests(key), member),
					List.of("PUBLISH", LockKeys.releaseChannel(key), "reserved:" + member),
					List.of("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL"));
			Thread.sleep(200);
			long interrupted = System.nanoTime();
			thread.interrupt();
			thread.join(PAUSE_MILLIS - 1000);
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interrupted);
			assertThat(thread.isAlive()).isFalse();
			assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
			assertThat(millis).as("ms from the interrupt to the end")
				.isLessThan(RedisConnections.COMMAND_TIMEOUT.toMillis() + 1500);
			Thread.sleep(Math.max(0, PAUSE_MILLIS + 200 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused)));
			await().atMost(Duration.ofSeconds(3))
				.until(() -> Long.valueOf(0).equals(server.command("ZCARD", LockKeys.requests(key))));
		}
	}

	/**
	 * The reservation message heard twice, back to back: one attempt is sent for the
	 * head, the second message finds the offer taken and only wakes the head, which waits
	 * for the settlement; one hold, one token.
	 */
	@Test
	void shouldTakeAReservationHeardTwiceOnce() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate waiter = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			String key = waiter.lockKey(LockName.of("review", "twice"));
			waiter.acquire(request("twice").build()).close();
			server.command("HSET", key, "owner", "other", "holds", "1", "token", "1", "queued", "1");
			server.command("PEXPIRE", key, "20000");
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> waiter.acquire(request("twice").waitTime(Duration.ofSeconds(20)).build()));
			String member = awaitRequest(key);
			Thread.sleep(300);
			server.resetStats();
			pipeline(server, List.of("HSET", key, "owner", "", "reserved", member, "holds", "0"),
					List.of("HDEL", key, "#other"), List.of("ZREM", LockKeys.requests(key), member),
					List.of("PUBLISH", LockKeys.releaseChannel(key), "reserved:" + member),
					List.of("PUBLISH", LockKeys.releaseChannel(key), "reserved:" + member));
			try (LockHandle handle = head.get(10, TimeUnit.SECONDS)) {
				assertThat(handle.fencingToken()).isGreaterThan(1);
				assertThat(String.valueOf(server.command("HGET", key, "token")))
					.isEqualTo(Long.toString(handle.fencingToken()));
				assertThat(waiter.reservedAttempts()).isEqualTo(1);
				assertThat(scripts(server)).as("the attempt sent for the head, and nothing else").isEqualTo(1);
				assertThat(String.valueOf(server.command("HGET", key, "holds"))).isEqualTo("1");
			}
			assertThat(server.command("EXISTS", key)).isEqualTo(0L);
		}
	}

	/**
	 * The factory's shared connection reset (as {@code resetConnection()} or a failed
	 * validation does): the attempt sent for a head must go out on the connection the
	 * factory uses now, not on the closed one last seen.
	 */
	@Test
	void shouldSendTheReservedAttemptOnTheSharedConnectionInUseAfterAReset() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory other = RedisConnections.standalone(server);
		LettuceConnectionFactory factory = this.connected.connectionFactory();
		try (RedisLockTemplate holder = RedisLockTemplate.builder(other).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(factory).build()) {
			waiter.acquire(request("reset").build()).close();
			factory.resetConnection();
			LockHandle held = holder.acquire(request("reset").build());
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> waiter.acquire(request("reset").waitTime(Duration.ofSeconds(20)).build()));
			await().atMost(Duration.ofSeconds(5)).until(() -> waiter.waitingThreads() == 1);
			Thread.sleep(300);
			server.resetStats();
			held.close();
			try (LockHandle handle = head.get(10, TimeUnit.SECONDS)) {
				assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
				assertThat(waiter.reservedAttempts()).as("attempts sent as the reservation was heard").isEqualTo(1);
				assertThat(scripts(server)).as("the release and the head's one attempt").isEqualTo(2);
			}
		}
		finally {
			other.destroy();
		}
	}

	/**
	 * Redis forgot its scripts (a restart, a failover, {@code SCRIPT FLUSH}): the attempt
	 * sent for the head gets NOSCRIPT and is sent again as EVAL from the thread that
	 * reads that reply, and takes the reservation.
	 */
	@Test
	void shouldTakeTheReservationAfterNoScript() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory other = RedisConnections.standalone(server);
		try (RedisLockTemplate holder = RedisLockTemplate.builder(other).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			String key = waiter.lockKey(LockName.of("review", "noscript"));
			LockHandle held = holder.acquire(request("noscript").build());
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> waiter.acquire(request("noscript").waitTime(Duration.ofSeconds(20)).build()));
			awaitRequest(key);
			Thread.sleep(300);
			server.command("SCRIPT", "FLUSH");
			server.resetStats();
			held.close();
			try (LockHandle handle = head.get(10, TimeUnit.SECONDS)) {
				assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
				assertThat(String.valueOf(server.command("HGET", key, "token")))
					.isEqualTo(Long.toString(handle.fencingToken()));
				assertThat(waiter.reservedAttempts()).isEqualTo(1);
				assertThat(server.commandCalls()).as("the release and the head's attempt, each as EVAL after NOSCRIPT")
					.containsEntry("eval", 2L);
			}
			assertThat(server.command("EXISTS", key)).isEqualTo(0L);
		}
		finally {
			other.destroy();
		}
	}

	/**
	 * The head's wait time ends while the attempt sent for it waits for a stalled Redis
	 * (shorter than the command timeout): the head waits for the reply and takes the
	 * grant, which came in time, as it takes the reply of an attempt it sent itself just
	 * before its wait time ended; nobody else holds the lock.
	 */
	@Test
	void aHeadWhoseWaitTimeEndsWhileItsReservedAttemptStallsTakesTheGrant() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate waiter = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			String key = waiter.lockKey(LockName.of("review", "late"));
			waiter.acquire(request("late").build()).close();
			server.command("HSET", key, "owner", "other", "holds", "1", "token", "1", "queued", "1");
			server.command("PEXPIRE", key, "20000");
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> waiter.acquire(request("late").waitTime(Duration.ofMillis(1200)).build()));
			String member = awaitRequest(key);
			Thread.sleep(400);
			pipeline(server, List.of("HSET", key, "owner", "", "reserved", member, "holds", "0"),
					List.of("ZREM", LockKeys.requests(key), member),
					List.of("PUBLISH", LockKeys.releaseChannel(key), "reserved:" + member),
					List.of("CLIENT", "PAUSE", "1500", "ALL"));
			try (LockHandle handle = head.get(10, TimeUnit.SECONDS)) {
				assertThat(handle.fencingToken()).isGreaterThan(1);
				assertThat(String.valueOf(server.command("HGET", key, "token")))
					.isEqualTo(Long.toString(handle.fencingToken()));
				assertThat(String.valueOf(server.command("HGET", key, "holds"))).isEqualTo("1");
				assertThat(waiter.reservedAttempts()).isEqualTo(1);
			}
			assertThat(server.command("EXISTS", key)).isEqualTo(0L);
			assertThat(server.command("ZCARD", LockKeys.requests(key))).isEqualTo(0L);
		}
	}

	private static String awaitRequest(String key) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Long.valueOf(1).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
		List<?> requests = (List<?>) redis.server().command("ZRANGE", LockKeys.requests(key), "0", "-1");
		return String.valueOf(requests.get(0));
	}

	/**
	 * Send commands in one write on a connection of their own, so that Redis runs them
	 * one after another before it reads anything a listener sends in reply.
	 */
	private static void pipeline(RedisServer server, List<String>... commands) throws IOException {
		StringBuilder resp = new StringBuilder();
		for (List<String> command : commands) {
			resp.append('*').append(command.size()).append("\r\n");
			for (String arg : command) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				resp.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
			}
		}
		try (Socket socket = new Socket(server.host(), server.port())) {
			OutputStream out = socket.getOutputStream();
			out.write(resp.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			// Read the replies, so the connection is not closed before they ran.
			byte[] buffer = new byte[4096];
			int replies = 0;
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
			var in = socket.getInputStream();
			while (replies < commands.length && System.nanoTime() - until < 0) {
				int read = in.read(buffer);
				if (read < 0) {
					break;
				}
				for (int i = 0; i < read - 1; i++) {
					if (buffer[i] == '\r' && buffer[i + 1] == '\n') {
						replies++;
					}
				}
			}
		}
	}

	private static long scripts(RedisServer server) {
		Map<String, Long> calls = server.commandCalls();
		return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("review").key(key).lease(Duration.ofSeconds(30));
	}

}
