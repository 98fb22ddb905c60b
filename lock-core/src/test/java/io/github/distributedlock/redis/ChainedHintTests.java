package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The chained hint (docs/design/waiting-and-hand-off.md, "The chained hint"): the head of
 * a template's line waits for its reservation with {@code BLPOP} of its hint key and its
 * attempt behind it, and the release that reserves the lock for it pushes the hint.
 */
class ChainedHintTests {

	private static final int ROUNDS = 300;

	private static final long KEPT_MILLIS = 200;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldHandTheLockOverBetweenTwoTemplatesByTheHint() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory other = RedisConnections.standalone(server);
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (RedisLockTemplate first = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate second = RedisLockTemplate.builder(other).build();
				StatefulRedisPubSubConnection<String, String> listening = client.connectPubSub()) {
			AtomicInteger reservations = new AtomicInteger();
			listening.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					if (message.startsWith("reserved:")) {
						reservations.incrementAndGet();
					}
				}

			});
			listening.sync().subscribe(first.lockKey(LockName.of("chained", "pair")) + ":released");
			first.acquire(request("pair")).close();
			second.acquire(request("pair")).close();
			server.resetStats();
			Contention contention = new Contention(ChainedHintTests::request);
			List<Future<?>> threads = new ArrayList<>();
			for (RedisLockTemplate template : List.of(first, second)) {
				threads.add(this.connected.executor().submit(() -> contention.run(template, "pair", ROUNDS)));
			}
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			Map<String, Long> calls = server.commandCalls();
			System.out.printf("Two templates, %d acquisitions, %d waited: %s%n", 2 * ROUNDS, contention.waited.get(),
					calls);
			assertThat(contention.failures).isEmpty();
			assertThat(contention.acquisitions.get()).isEqualTo(2 * ROUNDS);
			assertThat(calls.getOrDefault("blpop", 0L)).as("pairs").isGreaterThan(ROUNDS / 2);
			// One waiter in line at a time: every reservation is pushed, none published
			// (before, a reserved: message per hand-off).
			assertThat(reservations.get()).as("reserved: messages").isZero();
		}
		finally {
			other.destroy();
			client.shutdown();
		}
	}

	@Test
	void shouldReleaseWhatThePairWonWhenTheHeadIsInterrupted() throws Exception {
		LettuceConnectionFactory other = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(other).build()) {
			LockHandle held = holder.acquire(request("interrupted"));
			Future<Object> waiting = this.connected.executor().submit(() -> {
				try (LockHandle handle = waiter.acquire(request("interrupted"))) {
					return handle;
				}
				catch (LockInterruptedException ex) {
					return ex;
				}
			});
			awaitBlockedPair();
			waiting.cancel(true);
			await().atMost(Duration.ofSeconds(2)).until(() -> waiter.waitingThreads() == 0);
			held.close();
			// Nothing of the interrupted waiter is left: the lock is free at once (no
			// hold,
			// and no reservation for its withdrawn request).
			await().atMost(Duration.ofSeconds(2))
				.until(() -> holder.tryAcquire(request("interrupted", Duration.ZERO)).map(this::closed).orElse(false));
			assertThat(blockedPairs()).isZero();
		}
		finally {
			other.destroy();
		}
	}

	@Test
	void shouldTakeTheLockAfterTheHintConnectionIsKilledWhileBlocked() throws Exception {
		LettuceConnectionFactory other = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(other).build()) {
			LockHandle held = holder.acquire(request("killed"));
			Future<Long> waiting = this.connected.executor().submit(() -> {
				try (LockHandle handle = waiter.acquire(request("killed"))) {
					return handle.fencingToken();
				}
			});
			String client = awaitBlockedPair();
			redis.server().command("CLIENT", "KILL", "ID", client);
			// Lettuce connects again and sends the BLPOP and the attempt again, in order.
			await().atMost(Duration.ofSeconds(5)).until(() -> blockedPairs() == 1);
			long start = System.nanoTime();
			held.close();
			assertThat(waiting.get(5, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("woken by the hint, not its lease")
				.isLessThan(Duration.ofSeconds(2));
		}
		finally {
			other.destroy();
		}
	}

	@Test
	void shouldFailTheWaitWhenRedisDoesNotAnswerThePairWithinTheCommandTimeout() throws Exception {
		Duration timeout = Duration.ofMillis(500);
		LettuceConnectionFactory other = RedisConnections.standalone(redis.server().host(), redis.server().port(),
				timeout);
		ManagedRedisServer server = redis.managedServer();
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(other).build()) {
			LockHandle held = holder.acquire(request("stalled"));
			Future<Object> waiting = this.connected.executor().submit(() -> {
				try (LockHandle handle = waiter.acquire(request("stalled"))) {
					return handle;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			awaitBlockedPair();
			server.pause();
			long stalled = System.nanoTime();
			Object outcome;
			try {
				outcome = waiting.get(10, TimeUnit.SECONDS);
			}
			finally {
				server.resume();
			}
			// The pair was written just before the stall, with a BLPOP of half the
			// command
			// timeout (less than a quarter of the 10 s lease): Lettuce gives up on its
			// attempt
			// a command timeout after it was written, no later.
			assertThat(outcome).isInstanceOf(LockAccessException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - stalled)).isLessThan(timeout.plusMillis(700));
			// Its connection was closed: the attempt queued behind the BLPOP never runs,
			// so
			// the holder's release frees the lock for anyone (no reservation is left for
			// a request the failed waiter withdrew, and no hold of it).
			held.close();
			await().atMost(Duration.ofSeconds(3))
				.until(() -> holder.tryAcquire(request("stalled", Duration.ZERO)).map(this::closed).orElse(false));
		}
		finally {
			server.resume();
			other.destroy();
		}
	}

	@Test
	void shouldWakeACustomOwnerThatWaitsByPubSub() throws Exception {
		LettuceConnectionFactory other = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(other).build()) {
			LockHandle held = holder.acquire(request("custom"));
			// A custom owner may hold the lock in another process already: its attempts
			// may re-enter, so it does not chain.
			Future<Long> waiting = this.connected.executor().submit(() -> {
				try (LockHandle handle = waiter.acquire(sharedOwnerRequest("custom"))) {
					return handle.fencingToken();
				}
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> waiter.waitingThreads() == 1);
			Thread.sleep(300);
			assertThat(blockedPairs()).isZero();
			long start = System.nanoTime();
			held.close();
			assertThat(waiting.get(5, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		}
		finally {
			other.destroy();
		}
	}

	/**
	 * A lock kept for a minimum hold ends by expiry, which pushes no hint: the chained
	 * head's own timer pokes it then. Before, the head waited for its {@code BLPOP} to
	 * time out, which an idle redis-server does at its next cron tick: 95 to 100 ms after
	 * the keep ended, where a waiter asleep on the channel took the lock 2 to 14 ms after
	 * it (docs/design/waiting-and-hand-off.md, "The hint wait").
	 */
	@Test
	void shouldTakeTheLockSoonAfterAMinimumHoldEnds() throws Exception {
		LettuceConnectionFactory other = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate keeper = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(other).build()) {
			List<Long> late = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				long acquired = System.nanoTime();
				LockHandle kept = keeper.acquire(keptRequest());
				Future<Long> waiting = this.connected.executor().submit(() -> {
					try (LockHandle handle = waiter.acquire(request("kept"))) {
						return System.nanoTime();
					}
				});
				awaitBlockedPair();
				kept.close();
				late.add(TimeUnit.NANOSECONDS.toMillis(waiting.get(10, TimeUnit.SECONDS) - acquired) - KEPT_MILLIS);
			}
			late.sort(null);
			System.out.println("Chained waiter, ms after the keep ended: " + late);
			assertThat(late.get(2)).as("ms after the keep ended (median of %s)", late).isLessThan(50L);
		}
		finally {
			other.destroy();
		}
	}

	/**
	 * A pair's {@code BLPOP} lasts up to half the command timeout, and an idle
	 * redis-server ends it at its next cron tick, up to 100 ms late: with a command
	 * timeout of 100 ms, Lettuce timed the attempt behind it out, and the wait failed
	 * with {@link LockAccessException} (7 of 8 waits, 3 of 3 with 60 ms). Below
	 * {@code Waiting.Chain.MIN_COMMAND_TIMEOUT_NANOS} the head waits by pub/sub.
	 */
	@Test
	void shouldWaitByPubSubWithAShortCommandTimeout() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory other = RedisConnections.standalone(server.host(), server.port(),
				Duration.ofMillis(100));
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate waiter = RedisLockTemplate.builder(other).build()) {
			server.resetStats();
			List<String> outcomes = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				LockHandle held = holder.acquire(request("short-timeout-" + i));
				String key = "short-timeout-" + i;
				Future<String> waiting = this.connected.executor().submit(() -> {
					try (LockHandle handle = waiter.acquire(request(key))) {
						return "held";
					}
					catch (RuntimeException ex) {
						return ex.toString();
					}
				});
				// Holds of different lengths: pairs end at other phases
				// of the server's cron tick.
				Thread.sleep(300 + 37 * i);
				held.close();
				outcomes.add(waiting.get(10, TimeUnit.SECONDS));
			}
			assertThat(outcomes).as("each wait behind a hold of 300 ms or more").containsOnly("held");
			assertThat(server.commandCalls().getOrDefault("blpop", 0L)).as("pairs").isZero();
		}
		finally {
			other.destroy();
		}
	}

	private static LockRequest keptRequest() {
		return LockRequest.builder("chained")
			.key("kept")
			.lease(Duration.ofSeconds(10))
			.waitTime(Duration.ofSeconds(20))
			.holdAtLeast(Duration.ofMillis(KEPT_MILLIS))
			.build();
	}

	private boolean closed(LockHandle handle) {
		handle.close();
		return true;
	}

	/**
	 * Wait until one client of the server is blocked in a BLPOP, and return its id.
	 */
	private static String awaitBlockedPair() {
		await().atMost(Duration.ofSeconds(5)).until(() -> blockedPairs() == 1);
		for (String line : clients()) {
			if (line.contains("cmd=blpop")) {
				return line.substring(line.indexOf("id=") + 3, line.indexOf(' ', line.indexOf("id=")));
			}
		}
		throw new IllegalStateException("No blocked BLPOP");
	}

	private static long blockedPairs() {
		return clients().stream().filter((line) -> line.contains("cmd=blpop") && line.contains("flags=b")).count();
	}

	private static List<String> clients() {
		Object list = redis.server().command("CLIENT", "LIST");
		String text = (list instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(list);
		return List.of(text.split("\n"));
	}

	private static LockRequest sharedOwnerRequest(String key) {
		return LockRequest.builder("chained")
			.key(key)
			.owner("shared-owner")
			.lease(Duration.ofSeconds(10))
			.waitTime(Duration.ofSeconds(20))
			.build();
	}

	private static LockRequest request(String key, Duration waitTime) {
		return LockRequest.builder("chained").key(key).lease(Duration.ofSeconds(10)).waitTime(waitTime).build();
	}

	private static LockRequest request(String key) {
		return request(key, Duration.ofSeconds(20));
	}

}
