package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reader released before its minimum hold leaves a stand-in that writers wait for. When
 * the last live reader then leaves, the waiting writer must learn when the stand-in ends
 * and take the lock then, not at the lease of the reader that left. Found by the
 * simulation (seed 1029, pub/sub), and for keyspace waiters by a review: they slept 8 s,
 * the lease of the reader that left.
 */
class KeptReaderWakeTests {

	private static final Duration READ_LEASE = Duration.ofSeconds(8);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void aPubSubWriterTakesTheLockWhenTheKeptReaderEnds() throws Exception {
		assertWriterTakesTheLockWhenTheKeepEnds(WaitStrategy.PUBSUB, "pubsub");
	}

	@Test
	void aKeyspaceWriterTakesTheLockWhenTheKeptReaderEnds() throws Exception {
		redis.server().command("CONFIG", "SET", "notify-keyspace-events", "Kgx");
		assertWriterTakesTheLockWhenTheKeepEnds(WaitStrategy.KEYSPACE_EVENTS, "keyspace");
	}

	private void assertWriterTakesTheLockWhenTheKeepEnds(WaitStrategy strategy, String key) throws Exception {
		LockDefaults defaults = LockDefaults.STANDARD.withWaitStrategy(strategy);
		try (RedisLockTemplate readers = template(defaults); RedisLockTemplate writers = template(defaults)) {
			long started = System.nanoTime();
			LockHandle kept = readers.acquire(
					request(key).mode(LockMode.READ).lease(READ_LEASE).holdAtLeast(Duration.ofMillis(800)).build());
			LockHandle left = this.connected.executor()
				.submit(() -> readers.acquire(request(key).mode(LockMode.READ).lease(READ_LEASE).build()))
				.get(5, TimeUnit.SECONDS);
			Future<LockHandle> writer = this.connected.executor()
				.submit(() -> writers.acquire(request(key).waitTime(Duration.ofSeconds(15)).build()));
			// Held back by the readers, the writer has set its intent.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redis.server().command("EXISTS", LockKeys.writerIntent(lockKey(key))).equals(1L));
			// The first release leaves the stand-in and tells the writer, which tries
			// again and finds the other reader, with its 8 s lease; then that one leaves.
			kept.close();
			Thread.sleep(200);
			left.close();
			try (LockHandle taken = writer.get(15, TimeUnit.SECONDS)) {
				Duration waited = Duration.ofNanos(System.nanoTime() - started);
				// The keep ends 0.8 s after the first read grant; the lease of the reader
				// that left, 8 s after its grant.
				assertThat(waited).as("taken after the first read grant").isLessThan(Duration.ofSeconds(3));
				assertThat(taken.isHeld()).isTrue();
			}
		}
	}

	private static String lockKey(String key) {
		return "lock:{kept-reader:" + key + "}";
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("kept-reader").key(key);
	}

	private RedisLockTemplate template(LockDefaults defaults) {
		return RedisLockTemplate.builder(this.connected.connectionFactory()).defaults(defaults).build();
	}

}
