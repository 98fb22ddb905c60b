package io.github.distributedlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptEval;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RespConnection;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.assertj.core.api.SoftAssertions;
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
			// hold, and no reservation for its withdrawn request).
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
			// command timeout (less than a quarter of the 10 s lease): Lettuce gives up
			// on its attempt a command timeout after it was written, no later.
			assertThat(outcome).isInstanceOf(LockAccessException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - stalled)).isLessThan(timeout.plusMillis(700));
			// Its connection was closed: the attempt queued behind the BLPOP never runs,
			// so the holder's release frees the lock for anyone (no reservation is left
			// for a request the failed waiter withdrew, and no hold of it).
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

	/**
	 * With three processes in line, a release that reserves the lock for a quiet head
	 * tells nobody when everyone else in line is quiet too, and a progress-aware waiter
	 * queued behind its JVM's quiet head reads the lock before it gives up: it does not
	 * give up within its wait time after another process's hold began
	 * (docs/design/waiting-and-hand-off.md, "No reserved: message"). With the messages
	 * dropped and no reading, it gave up about 300 ms after that hold began.
	 */
	@Test
	void shouldKeepAProgressAwareWaiterBehindAQuietHeadWhileTheLockMovesWithoutAMessage() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory second = RedisConnections.standalone(server);
		LettuceConnectionFactory third = RedisConnections.standalone(server);
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (RedisLockTemplate first = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate other = RedisLockTemplate.builder(second).build();
				RedisLockTemplate behind = RedisLockTemplate.builder(third).build();
				StatefulRedisPubSubConnection<String, String> listening = client.connectPubSub()) {
			List<String> reservations = new CopyOnWriteArrayList<>();
			listening.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					if (message.startsWith("reserved:")) {
						reservations.add(message);
					}
				}

			});
			listening.sync().subscribe(first.lockKey(LockName.of("chained", "moves")) + ":released");
			LockHandle held = first.acquire(request("moves"));
			long[] otherHeld = new long[1];
			Future<?> otherWaits = this.connected.executor().submit(() -> {
				try (LockHandle handle = other.acquire(request("moves"))) {
					otherHeld[0] = System.nanoTime();
					Thread.sleep(2_000);
				}
				return null;
			});
			awaitBlockedPairs(1);
			Future<?> headWaits = this.connected.executor().submit(() -> {
				behind.acquire(request("moves")).close();
				return null;
			});
			awaitBlockedPairs(2);
			Thread.sleep(700);
			long start = System.nanoTime();
			Future<Long> queued = this.connected.executor().submit(() -> {
				try (LockHandle handle = behind.acquire(LockRequest.builder("chained")
					.key("moves")
					.lease(Duration.ofSeconds(10))
					.waitTime(Duration.ofMillis(600))
					.progressAwareTimeout(true)
					.build())) {
					return -1L;
				}
				catch (LockTimeoutException ex) {
					return System.nanoTime();
				}
			});
			Thread.sleep(300);
			held.close();
			long gaveUp = queued.get(10, TimeUnit.SECONDS);
			otherWaits.get(10, TimeUnit.SECONDS);
			headWaits.get(10, TimeUnit.SECONDS);
			assertThat(gaveUp).as("the queued waiter took the lock instead of giving up").isNotEqualTo(-1L);
			assertThat(TimeUnit.NANOSECONDS.toMillis(gaveUp - start)).as("it waited past its first wait time")
				.isGreaterThan(600);
			assertThat(TimeUnit.NANOSECONDS.toMillis(gaveUp - otherHeld[0]))
				.as("it gave up no sooner than its wait time after another process's hold began")
				.isGreaterThanOrEqualTo(600);
			assertThat(reservations).as("the releases that reserved the lock told nobody").isEmpty();
		}
		finally {
			client.shutdown();
			second.destroy();
			third.destroy();
		}
	}

	private static void awaitBlockedPairs(long count) {
		await().atMost(Duration.ofSeconds(5)).until(() -> blockedPairs() == count);
	}

	/**
	 * The release's message rule, script by script on the server (docs/design/
	 * waiting-and-hand-off.md, "No reserved: message"): a release that reserves the lock
	 * for a chained request pushes its hint, and publishes {@code reserved:} unless every
	 * other request of the 8 oldest it read is quiet ({@code q:}) and it read fewer than
	 * 8. A plain request, an older engine's chained one ({@code c:}) or a member of
	 * another form among them, a line of 8 or more, or a push the server refuses, and it
	 * publishes as before.
	 */
	@Test
	void shouldPublishTheReservationUnlessEveryoneElseInLineIsQuiet() {
		List<String> quiet6 = List.of("2000:q:b1", "2000:q:b2", "2000:q:b3", "2000:q:b4", "2000:q:b5", "2000:q:b6");
		List<String> quiet7 = new ArrayList<>(quiet6);
		quiet7.add("2000:q:b7");
		List<String> quiet9 = new ArrayList<>(quiet7);
		quiet9.addAll(List.of("2000:q:b8", "2000:q:b9"));
		String told = "reserved:";
		String pushed = "hint 1";
		SoftAssertions.assertSoftly((softly) -> {
			softly.assertThat(reservationMessages(false, "2000:q:a")).as("q: alone").containsExactly(pushed);
			softly.assertThat(reservationMessages(false, "2000:q:a", "2000:q:b", "2000:q:c"))
				.as("q: with only q: behind")
				.containsExactly(pushed);
			softly.assertThat(reservationMessages(false, "2000:c:a", "2000:q:b"))
				.as("an older engine's c: with only q: behind")
				.containsExactly(pushed);
			softly.assertThat(reservationMessages(false, "2000:q:a", quiet6.toArray(String[]::new)))
				.as("q: with 6 q: behind (7 read)")
				.containsExactly(pushed);
			softly.assertThat(reservationMessages(false, "2000:q:a", "2000:q:b", "2000:p"))
				.as("q: with a plain request behind")
				.containsExactly(told + "2000:q:a", pushed);
			softly.assertThat(reservationMessages(false, "2000:q:a", "2000:c:b", "2000:q:c"))
				.as("q: with an older engine's c: behind")
				.containsExactly(told + "2000:q:a", pushed);
			softly.assertThat(reservationMessages(false, "2000:c:a", "2000:q:b", "30000 7 0123abcd:42"))
				.as("c: with a member of another form behind")
				.containsExactly(told + "2000:c:a", pushed);
			softly.assertThat(reservationMessages(false, "2000:q:a", quiet7.toArray(String[]::new)))
				.as("q: with 7 q: behind (8 read)")
				.containsExactly(told + "2000:q:a", pushed);
			softly.assertThat(reservationMessages(false, "2000:c:a", quiet9.toArray(String[]::new)))
				.as("c: with 9 q: behind")
				.containsExactly(told + "2000:c:a", pushed);
			softly.assertThat(reservationMessages(false, "2000:a", "2000:q:b"))
				.as("a plain request with q: behind")
				.containsExactly(told + "2000:a");
			softly.assertThat(reservationMessages(false, "2000:a"))
				.as("a plain request alone")
				.containsExactly(told + "2000:a");
			softly.assertThat(reservationMessages(true, "2000:q:a", "2000:q:b"))
				.as("q: whose hint the server refuses to push, with q: behind")
				.containsExactly(told + "2000:q:a");
		});
	}

	/**
	 * {@code peek.lua} reads which hold a lock is at: the holder's token, the last
	 * holder's while the lock is reserved or kept, the slot's fencing counter while it is
	 * free, and -1 with neither.
	 */
	@Test
	void shouldPeekAtTheHoldALockIsAt() {
		RedisServer server = redis.server();
		String lock = "peek:{p}";
		String fence = LockKeys.fence(lock);
		assertThat(peek(lock)).as("free, no counter").isEqualTo(-1L);
		long first = acquire(lock, "holder", "h1", "");
		assertThat(peek(lock)).as("held").isEqualTo(first);
		server.command("ZADD", lock + ":requests", "1", "2000:q:w");
		assertThat(acquire(lock, "other", "h2", "")).as("refused").isZero();
		assertThat(release(lock, "holder", first, "h1", 0)).isZero();
		assertThat(server.command("HGET", lock, "reserved")).isEqualTo("2000:q:w");
		assertThat(peek(lock)).as("reserved: a change of hands, as its message was").isEqualTo(-1L);
		long second = acquire(lock, "waiter", "h3", "2000:q:w");
		assertThat(second).isGreaterThan(first);
		assertThat(peek(lock)).as("taken by the reserved request").isEqualTo(second);
		assertThat(release(lock, "waiter", second, "h3", 5000)).isZero();
		assertThat(server.command("HGET", lock, "owner")).as("kept").isEqualTo("");
		assertThat(peek(lock)).as("kept").isEqualTo(second);
		server.command("DEL", lock);
		assertThat(peek(lock)).as("free, the counter at the last grant").isEqualTo(second);
		// Another lock of the same hash slot moves the counter.
		long third = acquire("peek:{p}:other", "holder", "h4", "");
		assertThat(peek(lock)).as("free, the counter moved by a grant in the slot").isEqualTo(third);
		server.command("HSET", lock, "owner", "");
		assertThat(peek(lock)).as("a hash without a token").isEqualTo(third);
		server.command("DEL", lock);
		server.command("ZADD", LockKeys.readers(lock), "99999999999999", "reader");
		assertThat(peek(lock)).as("read: as a refused attempt reports readers").isZero();
		server.command("DEL", LockKeys.readers(lock));
		server.command("DEL", lock, fence);
		assertThat(peek(lock)).as("free, the counter gone").isEqualTo(-1L);
		assertThat(server.command("EXISTS", lock, fence)).as("it writes nothing").isEqualTo(0L);
	}

	private static long peek(String lock) {
		return (Long) ScriptEval.eval(redis.server(), LockScripts.PEEK,
				List.of(lock, LockKeys.fence(lock), LockKeys.readers(lock)));
	}

	/**
	 * Return the token of a grant, or 0 for a refusal.
	 */
	private static long acquire(String lock, String owner, String hold, String request) {
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE,
				List.of(lock, LockKeys.fence(lock), lock + ":readers", lock + ":intent", lock + ":requests"),
				new ScriptArgs.Acquire(owner, hold, 10000, request.isEmpty() ? -1 : 5000, request, 30000, false, false,
						true, LockKeys.FENCE_IDLE_MILLIS)
					.argv()
					.toArray(String[]::new));
		return Long.valueOf(1).equals(reply.get(0)) ? (Long) reply.get(1) : 0;
	}

	private static long release(String lock, String owner, long token, String hold, long keepMillis) {
		return (Long) ScriptEval.eval(redis.server(), LockScripts.RELEASE,
				List.of(lock, lock + ":released", lock + ":requests", lock + ":readers"),
				new ScriptArgs.Release(owner, token, hold, true, keepMillis, null).argv().toArray(String[]::new));
	}

	private int lines;

	/**
	 * File a line of requests in front of a hold (scored 1, 2, ...), mark the hold as a
	 * refused attempt does, release it, and return what the release published on the
	 * lock's channel. The lock must be reserved for the line's first request, and a
	 * chained one's hint pushed.
	 * @param refusePush whether the first request's hint is a key of another type, so
	 * that the release's push fails as one the ACL refuses does
	 */
	private List<String> reservationMessages(boolean refusePush, String first, String... behind) {
		RedisServer server = redis.server();
		String lock = "line:{" + (++this.lines) + "}";
		String channel = lock + ":released";
		try (RespConnection listening = server.connect()) {
			listening.send("SUBSCRIBE", channel);
			listening.awaitNext();
			long token = acquire(lock, "holder", "h1", "");
			server.command("ZADD", lock + ":requests", "1", first);
			for (int i = 0; i < behind.length; i++) {
				server.command("ZADD", lock + ":requests", Integer.toString(i + 2), behind[i]);
			}
			if (refusePush) {
				server.command("SET", lock + ":hint:" + first, "x", "PX", "10000");
			}
			assertThat(acquire(lock, "other", "h2", "")).as("refused").isZero();
			assertThat(release(lock, "holder", token, "h1", 0)).isZero();
			assertThat(server.command("HGET", lock, "reserved")).as("reserved for").isEqualTo(first);
			server.command("PUBLISH", channel, "end");
			List<String> messages = new ArrayList<>();
			while (true) {
				List<?> message = (List<?>) listening.awaitNext();
				if (message.get(2).equals("end")) {
					break;
				}
				messages.add(String.valueOf(message.get(2)));
			}
			if (first.matches("[0-9]+:[cq]:.*") && !refusePush) {
				// Told or not, the reserved waiter's hint is pushed.
				messages.add("hint " + server.command("LLEN", lock + ":hint:" + first));
			}
			return messages;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
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
