package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An adversarial review of heads that offer themselves to a local hold before their first
 * attempt (docs/design/waiting-and-hand-off.md, "Offering before the first attempt"): a
 * hold whose end the head does not hear of, and what a handle granted that way reports.
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
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
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

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("review").key(key).lease(LEASE).waitTime(Duration.ofSeconds(25));
	}

}
