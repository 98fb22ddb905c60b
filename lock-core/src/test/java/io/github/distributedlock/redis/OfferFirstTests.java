package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A head that gets its turn while a hold of another owner in its own template holds the
 * lock offers itself before its first attempt, and sends nothing
 * (docs/design/waiting-and-hand-off.md, "Offering before the first attempt"); whatever
 * way that hold ends, the head is woken at once, or at the hold's lease end, never later.
 * <p>
 * Each test lines up three threads of one template: {@code a} holds; {@code b} waits and
 * is granted the lock by {@code a}'s release; {@code c}, queued behind {@code b}, becomes
 * the head while {@code b} holds, and must offer itself without an attempt. Then
 * {@code b} ends its hold one way or another, and {@code c} must hold the lock long
 * before {@code b}'s lease (30 s) or its own wait time (25 s) would end.
 * <p>
 * Its templates chain no waiters ({@code hintConnections(0)}): a chained head is never
 * offered a local hand-over (docs/design/waiting-and-hand-off.md, "The chained hint").
 */
class OfferFirstTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldHandTheLockOverWithOneScriptPerAcquisition() throws Exception {
		RedisServer server = redis.server();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			template.acquire(request("pair").build()).close();
			server.resetStats();
			int rounds = 300;
			List<Future<?>> threads = new ArrayList<>();
			long[] lastToken = { -1 };
			List<String> failures = new CopyOnWriteArrayList<>();
			for (int t = 0; t < 2; t++) {
				threads.add(this.connected.executor().submit(() -> {
					for (int i = 0; i < rounds; i++) {
						try (LockHandle handle = template.acquire(request("pair").build())) {
							synchronized (lastToken) {
								if (handle.fencingToken() <= lastToken[0]) {
									failures.add("token " + handle.fencingToken() + " after " + lastToken[0]);
								}
								lastToken[0] = handle.fencingToken();
							}
							Thread.sleep(1);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
							return;
						}
					}
				}));
			}
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			Map<String, Long> calls = server.commandCalls();
			double scripts = (double) (calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L))
					/ (2 * rounds);
			System.out.printf("Two threads, heads offering first: %.2f scripts per acquisition, %d grants (%s)%n",
					scripts, template.localGrants(), calls);
			assertThat(failures).isEmpty();
			// 1.02 measured; 2.09-2.18 when heads offered only after their first attempt.
			assertThat(scripts).as("scripts per acquisition").isLessThan(1.5);
		}
	}

	@Test
	void shouldGrantTheLockToQueuedWaitersWithinTheLimitAcrossTwoTemplates() throws Exception {
		RedisServer server = redis.server();
		LettuceConnectionFactory second = RedisConnections.standalone(server);
		try (RedisLockTemplate one = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build(); RedisLockTemplate two = RedisLockTemplate.builder(second).hintConnections(0).build()) {
			one.acquire(request("two-by-four").build()).close();
			two.acquire(request("two-by-four").build()).close();
			server.resetStats();
			long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
			AtomicBoolean inside = new AtomicBoolean();
			AtomicLong lastToken = new AtomicLong(-1);
			AtomicInteger[] acquisitions = { new AtomicInteger(), new AtomicInteger() };
			List<String> failures = new CopyOnWriteArrayList<>();
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int process = t % 2;
				RedisLockTemplate template = (process == 0) ? one : two;
				threads.add(this.connected.executor().submit(() -> {
					while (System.nanoTime() - end < 0) {
						try (LockHandle handle = template.acquire(request("two-by-four").build())) {
							if (!inside.compareAndSet(false, true)) {
								failures.add("two holders at once, token " + handle.fencingToken());
							}
							if (handle.fencingToken() <= lastToken.getAndSet(handle.fencingToken())) {
								failures.add("token " + handle.fencingToken() + " not increasing");
							}
							long until = System.nanoTime() + 100_000;
							while (System.nanoTime() - until < 0) {
								Thread.onSpinWait();
							}
							acquisitions[process].incrementAndGet();
							inside.set(false);
						}
					}
				}));
			}
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			int total = acquisitions[0].get() + acquisitions[1].get();
			Map<String, Long> calls = server.commandCalls();
			double scripts = (double) calls.getOrDefault("evalsha", 0L) / total;
			System.out.printf(
					"Two templates x 4 threads, 100 us holds: %d acquisitions (%d + %d), %.2f scripts "
							+ "per acquisition, %d grants, %d refusals at the limit passed on (%s)%n",
					total, acquisitions[0].get(), acquisitions[1].get(), scripts, one.localGrants() + two.localGrants(),
					one.localPassedOn() + two.localPassedOn(), calls);
			assertThat(failures).isEmpty();
			// Each template is held back by the other's line within the limit (4):
			// neither takes nearly all the acquisitions.
			assertThat(acquisitions[0].get()).isGreaterThan(total / 5);
			assertThat(acquisitions[1].get()).isGreaterThan(total / 5);
			// About 1.5 measured (4 grants, then a refusal that reserves in the same
			// script); 1.5 to 1.7 while the refusal was followed by release.lua; 2.3 to
			// 2.9 when only a head that had woken up could be granted the lock.
			assertThat(scripts).as("scripts per acquisition").isLessThan(2.0);
		}
		finally {
			second.destroy();
		}
	}

	@Test
	void shouldGrantTheLockToAHeadThatOfferedFirstOnARelease() throws Exception {
		Duration waited = takeOver(request("release"), (template, held) -> held.close());
		assertThat(waited).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void shouldWakeAHeadThatOfferedFirstWhenANestedHoldIsReleasedInsideOut() throws Exception {
		LockRequest.Builder nested = request("nested").reentrant(true);
		Duration waited = takeOver(nested, (template, held) -> {
			LockHandle inner = template.acquire(nested.build());
			inner.close();
			held.close();
		});
		assertThat(waited).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void shouldWakeAHeadThatOfferedFirstWhenAMinimumHoldIsKept() throws Exception {
		Duration waited = takeOver(request("kept").holdAtLeast(Duration.ofMillis(2500)),
				(template, held) -> held.close());
		// The lock stays held for the rest of the minimum hold, then the head's own
		// attempt takes it.
		assertThat(waited).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void shouldWakeAHeadThatOfferedFirstWhenTheHoldIsFoundLost() throws Exception {
		Duration waited = takeOver(request("lost"), (template, held) -> {
			redis.server().command("DEL", template.lockKey(LockName.of("offer", "lost")));
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(held::close);
		});
		assertThat(waited).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void shouldWakeAHeadThatOfferedFirstWhenTheHoldsLeaseEndsWithoutARelease() throws Exception {
		Duration waited = takeOver(request("abandoned").lease(Duration.ofMillis(2000)).autoRenew(false),
				(template, held) -> {
				});
		// Woken by its timer at the hold's lease end, counted from b's grant.
		assertThat(waited).isLessThan(Duration.ofSeconds(4));
	}

	/**
	 * Line up {@code a}, {@code b} and {@code c} as the class describes, let {@code b}
	 * end its hold with {@code ending} (on its own thread), and return how long {@code c}
	 * waited from then on.
	 */
	private Duration takeOver(LockRequest.Builder bRequest, BiConsumer<RedisLockTemplate, LockHandle> ending)
			throws Exception {
		RedisServer server = redis.server();
		LockRequest request = bRequest.build();
		LockRequest plain = request(String.valueOf(request.name().key())).build();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory())
			.hintConnections(0)
			.build()) {
			String key = template.lockKey(request.name());
			LockHandle a = template.acquire(plain);
			CompletableFuture<LockHandle> bHeld = new CompletableFuture<>();
			CountDownLatch bEnds = new CountDownLatch(1);
			Future<?> b = this.connected.executor().submit(() -> {
				LockHandle held = template.acquire(request);
				bHeld.complete(held);
				bEnds.await();
				ending.accept(template, held);
				return null;
			});
			// b waits: it filed its request and sleeps, or, if its channel was subscribed
			// by the time it came first, offers itself to a's hold without filing it.
			await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
			Thread.sleep(200);
			Future<LockHandle> c = this.connected.executor().submit(() -> template.acquire(plain));
			// c joins the hot line behind b and waits for its turn.
			Thread.sleep(300);
			server.resetStats();
			a.close();
			LockHandle bHandle = bHeld.get(5, TimeUnit.SECONDS);
			assertThat(template.localGrants()).as("a's release granted b the lock").isEqualTo(1);
			// c is the head now, while b holds: it offers itself and sends nothing.
			Thread.sleep(500);
			assertThat(server.commandCalls().getOrDefault("evalsha", 0L)).as("scripts since a's release, its own")
				.isEqualTo(1);
			assertThat(c.isDone()).isFalse();
			long endNanos = System.nanoTime();
			bEnds.countDown();
			LockHandle cHandle = c.get(25, TimeUnit.SECONDS);
			Duration waited = Duration.ofNanos(System.nanoTime() - endNanos);
			b.get(5, TimeUnit.SECONDS);
			assertThat(cHandle.fencingToken()).isGreaterThan(bHandle.fencingToken());
			assertThat(cHandle.waited()).as("c waited").isTrue();
			assertThat(cHandle.attempts()).as("c's attempts, a grant by a release counted").isPositive();
			assertThat(cHandle.isHeld()).isTrue();
			cHandle.close();
			assertThat(server.command("EXISTS", key)).as("nothing left held").isEqualTo(0L);
			return waited;
		}
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("offer").key(key).lease(LEASE).waitTime(Duration.ofSeconds(25));
	}

}
