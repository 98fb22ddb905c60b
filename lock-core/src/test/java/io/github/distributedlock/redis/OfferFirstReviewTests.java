package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An adversarial review of heads that offer themselves to a local hold before their first
 * attempt (docs/design/waiting-and-hand-off.md, "Offering before the first attempt"): a
 * hold whose end the head does not hear of, and what a handle granted that way reports.
 * <p>
 * Its templates chain no waiters ({@code hintConnections(0)}): a chained head is never
 * offered a local hand-over (docs/design/waiting-and-hand-off.md, "The chained hint").
 */
class OfferFirstReviewTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	/**
	 * The local hold is found by lock key, but its end signals the queue of the holder's
	 * own wait strategy: a head of another strategy (another local queue) that offered
	 * itself first hears nothing. The hold was taken on a free lock (no 'queued' mark),
	 * so its release frees the lock without a message, and the head sleeps until its own
	 * wait time (or the hold's 30 s lease), the lock free all the while.
	 */
	@Test
	void shouldWakeAHeadThatOfferedFirstToAHoldOfAnotherWaitStrategy() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build()) {
			String key = template.lockKey(LockName.of("review", "strategy"));
			makeHot(template, key, "strategy");
			// A hold of a polling request on the free lock, then a pub/sub head.
			LockHandle polling = template.acquire(request("strategy").waitStrategy(WaitStrategy.POLLING).build());
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> template.acquire(request("strategy").waitTime(Duration.ofSeconds(10)).build()));
			Thread.sleep(500);
			assertThat(head.isDone()).isFalse();
			long releasedNanos = System.nanoTime();
			polling.close();
			LockHandle taken = head.get(15, TimeUnit.SECONDS);
			Duration waited = Duration.ofNanos(System.nanoTime() - releasedNanos);
			assertThat(taken.fencingToken()).isGreaterThan(polling.fencingToken());
			taken.close();
			assertThat(waited).as("the head's wait after the release").isLessThan(Duration.ofSeconds(3));
		}
	}

	/**
	 * A head that joined a hot line first, while another thread of its template held the
	 * lock, offered itself without an attempt and was granted the lock by the release: it
	 * had to wait, so its handle must say so (LockContext#waited). Before heads offered
	 * first, its attempt on becoming the head counted, and it did.
	 */
	@Test
	void shouldReportThatAHeadGrantedBeforeItsFirstAttemptWaited() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build()) {
			String key = template.lockKey(LockName.of("review", "waited"));
			makeHot(template, key, "waited");
			LockHandle holder = template.acquire(request("waited").build());
			server.resetStats();
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> template.acquire(request("waited").build()));
			Thread.sleep(500);
			assertThat(server.commandCalls().getOrDefault("evalsha", 0L)).as("the head's attempts").isZero();
			holder.close();
			LockHandle taken = head.get(5, TimeUnit.SECONDS);
			taken.close();
			assertThat(template.localGrants()).as("granted by the release").isEqualTo(2);
			assertThat(taken.attempts()).as("attempts").isGreaterThanOrEqualTo(1);
			assertThat(taken.waited()).as("waited").isTrue();
		}
	}

	/**
	 * A head that joined a hot line and became its head while another thread held, then
	 * was granted the lock by that hold's release, never sent an attempt: its handle must
	 * still report at least one (LockContext#attempts: "at least 1").
	 */
	@Test
	void shouldReportAtLeastOneAttemptForAHeadGrantedBeforeItsFirstAttempt() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(LockName.of("review", "attempts"));
			LockHandle a = template.acquire(request("attempts").build());
			Future<LockHandle> b = this.connected.executor()
				.submit(() -> template.acquire(request("attempts").build()));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> Long.valueOf(1).equals(server.command("ZCARD", LockKeys.requests(key))));
			Future<LockHandle> c = this.connected.executor()
				.submit(() -> template.acquire(request("attempts").build()));
			Thread.sleep(300);
			a.close();
			LockHandle bHandle = b.get(5, TimeUnit.SECONDS);
			server.resetStats();
			// c is the head now, offering itself first to b's hold.
			Thread.sleep(300);
			assertThat(server.commandCalls().getOrDefault("evalsha", 0L)).as("c's attempts").isZero();
			bHandle.close();
			LockHandle cHandle = c.get(5, TimeUnit.SECONDS);
			cHandle.close();
			assertThat(template.localGrants()).as("granted by the releases").isEqualTo(2);
			assertThat(cHandle.waited()).as("waited").isTrue();
			assertThat(cHandle.attempts()).as("attempts").isGreaterThanOrEqualTo(1);
		}
	}

	/**
	 * A hand-over to a head that offered itself first (its request never filed) runs, but
	 * its reply is lost (the command times out): the head's own attempt, with its hold
	 * id, finds the grant, and nothing is left in the line.
	 */
	@Test
	void shouldLetAHeadThatOfferedFirstFindTheGrantOfAHandOverWithoutAReply() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory factory = RedisConnections.standalone(server.host(), server.port(),
				Duration.ofMillis(600));
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.hintConnections(0)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build()) {
			String key = template.lockKey(LockName.of("review", "no-reply"));
			makeHot(template, key, "no-reply");
			LockHandle holder = template.acquire(request("no-reply").build());
			server.resetStats();
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> template.acquire(request("no-reply").build()));
			Thread.sleep(500);
			assertThat(server.commandCalls().getOrDefault("evalsha", 0L)).as("the head's attempts").isZero();
			server.command("CLIENT", "PAUSE", "900", "WRITE");
			Throwable releaseFailure = null;
			try {
				holder.close();
			}
			catch (RuntimeException ex) {
				releaseFailure = ex;
			}
			assertThat(releaseFailure).as("the release without a reply").isNotNull();
			LockHandle handle = head.get(10, TimeUnit.SECONDS);
			assertThat(handle.fencingToken()).isGreaterThan(holder.fencingToken());
			assertThat(hashField(key, "granted")).isEqualTo(Long.toString(handle.fencingToken()));
			assertThat(hashField(key, "token")).isEqualTo(Long.toString(handle.fencingToken()));
			assertThat(hashField(key, "holds")).isEqualTo("1");
			assertThat(server.command("EXISTS", LockKeys.requests(key))).as("requests left").isEqualTo(0L);
			assertThat(template.localGrants()).as("grants whose reply came (the warm-up's)").isEqualTo(1);
			handle.close();
			assertThat(server.command("EXISTS", key)).isEqualTo(0L);
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A head that offered itself first is interrupted while the hand-over to it waits for
	 * its reply: it waits for the settlement, releases the grant it no longer wants, and
	 * leaves nothing in the line.
	 */
	@Test
	void shouldReleaseTheGrantOfAnInterruptedHeadThatOfferedFirst() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build()) {
			String key = template.lockKey(LockName.of("review", "interrupted"));
			makeHot(template, key, "interrupted");
			LockHandle holder = template.acquire(request("interrupted").build());
			AtomicReference<Object> headOutcome = new AtomicReference<>();
			Thread head = new Thread(() -> {
				try {
					headOutcome.set(template.acquire(request("interrupted").build()));
				}
				catch (RuntimeException ex) {
					headOutcome.set(ex);
				}
			});
			server.resetStats();
			head.start();
			Thread.sleep(500);
			assertThat(server.commandCalls().getOrDefault("evalsha", 0L)).as("the head's attempts").isZero();
			server.command("CLIENT", "PAUSE", "1000", "WRITE");
			CompletableFuture<Void> release = CompletableFuture.runAsync(holder::close, this.connected.executor());
			Thread.sleep(300);
			head.interrupt();
			release.get(10, TimeUnit.SECONDS);
			head.join(10_000);
			assertThat(headOutcome.get()).isInstanceOf(LockInterruptedException.class);
			assertThat(template.localGrants()).as("grants").isEqualTo(2);
			assertThat(server.command("EXISTS", key)).as("the unwanted grant released").isEqualTo(0L);
			assertThat(server.command("EXISTS", LockKeys.requests(key))).as("requests left").isEqualTo(0L);
		}
	}

	/**
	 * A head that offered itself first to a hold that outlasts its wait time gives up at
	 * its own wait time, not the hold's lease, and withdraws the request its last attempt
	 * filed.
	 */
	@Test
	void shouldGiveUpAtItsWaitTimeWhileOfferedFirst() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build()) {
			String key = template.lockKey(LockName.of("review", "wait-time"));
			makeHot(template, key, "wait-time");
			LockHandle holder = template.acquire(request("wait-time").build());
			long startNanos = System.nanoTime();
			Future<LockHandle> head = this.connected.executor()
				.submit(() -> template.acquire(request("wait-time").waitTime(Duration.ofSeconds(1)).build()));
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> head.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockTimeoutException.class);
			Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
			assertThat(waited).isBetween(Duration.ofMillis(900), Duration.ofMillis(2500));
			assertThat(server.command("EXISTS", LockKeys.requests(key))).as("requests left").isEqualTo(0L);
			assertThat(holder.isHeld()).isTrue();
			holder.close();
			assertThat(server.command("EXISTS", key)).isEqualTo(0L);
		}
	}

	/**
	 * The template shuts down while a head sleeps offering itself first: the head fails
	 * at once, having filed nothing, and the holder's release still works.
	 */
	@Test
	void shouldFailAHeadThatOfferedFirstWhenTheTemplateShutsDown() throws Exception {
		RedisServer server = redis.server();
		RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.subscriptionLinger(Duration.ofSeconds(30))
			.build();
		String key = template.lockKey(LockName.of("review", "shutdown"));
		makeHot(template, key, "shutdown");
		LockHandle holder = template.acquire(request("shutdown").build());
		server.resetStats();
		Future<LockHandle> head = this.connected.executor().submit(() -> template.acquire(request("shutdown").build()));
		Thread.sleep(500);
		assertThat(server.commandCalls().getOrDefault("evalsha", 0L)).as("the head's attempts").isZero();
		long closedNanos = System.nanoTime();
		template.close();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> head.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockAccessException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - closedNanos)).isLessThan(Duration.ofSeconds(2));
		assertThat(server.command("EXISTS", LockKeys.requests(key))).as("requests left").isEqualTo(0L);
		assertThat(holder.isHeld()).isTrue();
		holder.close();
		assertThat(server.command("EXISTS", key)).isEqualTo(0L);
	}

	/**
	 * The local holds kept for heads to offer themselves to are forgotten when their
	 * handles are closed, and, for handles never closed, once their lease is over (the
	 * holds' sweep): none is left behind, however many locks were held.
	 */
	@Test
	void shouldLeaveNoLocalHoldBehind() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			List<LockHandle> closed = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				closed.add(template.acquire(request("closed-" + i).build()));
				// Abandoned: never closed, its lease short and not renewed.
				template.acquire(request("abandoned-" + i).lease(Duration.ofMillis(300)).autoRenew(false).build());
			}
			assertThat(template.localHolders()).isEqualTo(200);
			for (LockHandle handle : closed) {
				handle.close();
			}
			assertThat(template.localHolders()).as("after the closes").isEqualTo(100);
			await().atMost(Duration.ofSeconds(5)).until(() -> template.localHolders() == 0);
			assertThat(template.holds().size()).as("holds left").isZero();
		}
	}

	/**
	 * Four threads of one template take the lock in turn, each head offering itself first
	 * (never filing), while a waiter of another template (another process) takes it 20
	 * times: its filed request still cuts every run of grants at the limit, so at most
	 * the limit's grants, plus the holds before its request is filed and the one taken
	 * from a reservation, go between its call and its hold.
	 */
	@Test
	void shouldStillLetAWaiterOfAnotherProcessInAfterTheLimit() throws Exception {
		int limit = 1;
		try (RedisLockTemplate local = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.localHandOffs(limit)
			.build();
				RedisLockTemplate remote = RedisLockTemplate.builder(this.connected.connectionFactory())
					.hintConnections(0)
					.build()) {
			String key = local.lockKey(LockName.of("review", "limit"));
			AtomicBoolean remoteDone = new AtomicBoolean();
			AtomicInteger localHolds = new AtomicInteger();
			AtomicBoolean inside = new AtomicBoolean();
			AtomicLong lastToken = new AtomicLong(-1);
			ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				threads.add(this.connected.executor().submit(() -> {
					while (!remoteDone.get()) {
						holdOnce(local, inside, lastToken, failures, localHolds::incrementAndGet);
					}
				}));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> local.localGrants() > 20);
			Future<Integer> remoteWaiter = this.connected.executor().submit(() -> {
				int most = 0;
				for (int i = 0; i < 20; i++) {
					// Counted from the call, not from its previous hold: local holds
					// taken before the remote waiter asks again (its thread descheduled
					// on a loaded machine) are outside the bound.
					int asked = localHolds.get();
					AtomicInteger held = new AtomicInteger();
					holdOnce(remote, inside, lastToken, failures, () -> held.set(localHolds.get()));
					if (i > 0) {
						// The first includes the holds while its line subscribes.
						most = Math.max(most, held.get() - asked);
					}
				}
				remoteDone.set(true);
				return most;
			});
			long longestRun = 0;
			while (!remoteWaiter.isDone()) {
				Object run = redis.server().command("HGET", key, "run");
				if (run != null) {
					longestRun = Math.max(longestRun, Long.parseLong(String.valueOf(run)));
				}
			}
			int most = remoteWaiter.get(30, TimeUnit.SECONDS);
			for (Future<?> thread : threads) {
				thread.get(30, TimeUnit.SECONDS);
			}
			System.out.printf(
					"Limit %d, four local threads: at most %d local holds between a remote call and its hold, "
							+ "runs of at most %d grants; %d grants in all%n",
					limit, most, longestRun, local.localGrants());
			assertThat(failures).isEmpty();
			assertThat(longestRun).as("grants in a row while a remote request waited").isLessThanOrEqualTo(limit);
			assertThat(most).as("local holds between a remote call and its hold")
				.isLessThanOrEqualTo(2 * (limit + 1) + 2);
		}
	}

	/**
	 * Four threads of one template take a lock in turn for 4 s with 10 s leases: plain
	 * holds, nested holds released inside out and outside in, minimum holds, and now and
	 * then a polling request. A head that offered itself first to a hold whose end it
	 * missed would sleep until that hold's lease end: no acquisition may take that long.
	 */
	@Test
	void shouldNeverLeaveAHeadAsleepPastARelease() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			AtomicBoolean inside = new AtomicBoolean();
			AtomicLong lastToken = new AtomicLong(-1);
			AtomicLong longestNanos = new AtomicLong();
			ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				int thread = t;
				threads.add(this.connected.executor().submit(() -> {
					Random random = new Random(thread);
					while (System.nanoTime() - end < 0) {
						LockRequest.Builder builder = request("asleep").lease(Duration.ofSeconds(10)).reentrant(true);
						int draw = random.nextInt(10);
						if (draw == 0) {
							builder.waitStrategy(WaitStrategy.POLLING);
						}
						else if (draw == 1) {
							builder.holdAtLeast(Duration.ofMillis(1 + random.nextInt(3)));
						}
						long startNanos = System.nanoTime();
						LockHandle handle = template.acquire(builder.build());
						longestNanos.accumulateAndGet(System.nanoTime() - startNanos, Math::max);
						if (!inside.compareAndSet(false, true)) {
							failures.add("two holders at once, token " + handle.fencingToken());
						}
						if (handle.fencingToken() <= lastToken.get()) {
							failures.add("token " + handle.fencingToken() + " after " + lastToken.get());
						}
						lastToken.set(handle.fencingToken());
						LockHandle inner = (draw >= 7) ? template.acquire(builder.build()) : null;
						pause(1);
						inside.set(false);
						if (inner != null && draw == 9) {
							// Outside in: the outer hold first, the inner last.
							handle.close();
							inner.close();
						}
						else {
							if (inner != null) {
								inner.close();
							}
							handle.close();
						}
					}
				}));
			}
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			System.out.printf("Mixed holds of one template: longest acquisition %d ms, %d grants%n",
					TimeUnit.NANOSECONDS.toMillis(longestNanos.get()), template.localGrants());
			assertThat(failures).isEmpty();
			assertThat(Duration.ofNanos(longestNanos.get())).as("longest acquisition")
				.isLessThan(Duration.ofSeconds(3));
		}
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void holdOnce(RedisLockTemplate template, AtomicBoolean inside, AtomicLong lastToken,
			ConcurrentLinkedQueue<String> failures, Runnable counted) {
		try (LockHandle handle = template.acquire(request("limit").lease(Duration.ofSeconds(10)).build())) {
			if (!inside.compareAndSet(false, true)) {
				failures.add("two holders at once, token " + handle.fencingToken());
			}
			if (handle.fencingToken() <= lastToken.get()) {
				failures.add("token " + handle.fencingToken() + " after " + lastToken.get());
			}
			lastToken.set(handle.fencingToken());
			counted.run();
			Thread.sleep(2);
			inside.set(false);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Leave the lock's pub/sub queue lingering, with nobody in it, and the lock free: a
	 * waiter by pub/sub is granted the lock and releases it.
	 */
	private void makeHot(RedisLockTemplate template, String key, String name) throws Exception {
		RedisServer server = redis.server();
		LockHandle first = template.acquire(request(name).build());
		Future<LockHandle> waiter = this.connected.executor().submit(() -> template.acquire(request(name).build()));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Long.valueOf(1).equals(server.command("ZCARD", LockKeys.requests(key))));
		first.close();
		waiter.get(5, TimeUnit.SECONDS).close();
		assertThat(server.command("EXISTS", key)).isEqualTo(0L);
		assertThat(template.waitQueueCount()).isEqualTo(1);
	}

	private static String hashField(String key, String field) {
		return String.valueOf(redis.server().command("HGET", key, field));
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("review").key(key).lease(LEASE).waitTime(Duration.ofSeconds(25));
	}

}
