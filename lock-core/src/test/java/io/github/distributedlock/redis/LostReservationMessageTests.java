package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A reservation whose {@code reserved:} message never reaches its waiter (a lost pub/sub
 * message) is still taken by that waiter: a waiter that filed a request tries again
 * within half of its claim ({@code HandOffRequest.retryNanos}), before the reservation
 * lapses. Before, it slept on toward the holder's lease end, the reservation lapsed after
 * its claim, and the waiter lost its place and waited for the whole lease.
 * <p>
 * The lost message is made by reserving the lock as {@code pass_on} in {@code lib.lua}
 * does, without the {@code PUBLISH}: what a release whose message was lost leaves in
 * Redis.
 */
class LostReservationMessageTests {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final long CLAIM_MILLIS = HandOffRequest.CLAIM_MILLIS;

	// pass_on without its message: the oldest request gets the lock for its claim.
	private static final String RESERVE_SILENTLY = """
			local next = redis.call('ZRANGE', KEYS[2], '0', '0')[1]
			redis.call('ZREM', KEYS[2], next)
			redis.call('DEL', KEYS[1])
			redis.call('HSET', KEYS[1], 'owner', '', 'holds', '0', 'reserved', next, 'token', ARGV[1], 'queued', '1')
			redis.call('PEXPIRE', KEYS[1], string.match(next, '^(%d+):'))
			return redis.call('PTTL', KEYS[1])
			""";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void aWaiterWhoseReservationMessageIsLostTakesTheReservationWithinItsClaim() throws Exception {
		try (RedisLockTemplate holder = template(); RedisLockTemplate waiter = template()) {
			LockHandle hold = holder.acquire(LockRequest.builder("lost").key("x").lease(LEASE).build());
			Future<LockHandle> waiting = this.connected.executor()
				.submit(() -> waiter
					.acquire(LockRequest.builder("lost").key("x").waitTime(Duration.ofSeconds(8)).build()));
			String lock = key("*lost*x}");
			String requests = lock + ":requests";
			awaitRequestFiled(requests);
			Object claimLeft = redis.server()
				.command("EVAL", RESERVE_SILENTLY, "2", lock, requests, Long.toString(hold.fencingToken()));
			long reserved = System.nanoTime();
			assertThat((Long) claimLeft).as("reserved for the waiter's request").isPositive();
			try (LockHandle taken = waiting.get(8, TimeUnit.SECONDS)) {
				assertThat(Duration.ofNanos(System.nanoTime() - reserved)).as("taken while reserved for it")
					.isLessThan(Duration.ofMillis(CLAIM_MILLIS));
				assertThat(taken.fencingToken()).isGreaterThan(hold.fencingToken());
			}
			// The emulated release took the holder's hold away: its own release says so.
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(hold::close);
		}
	}

	private void awaitRequestFiled(String requests) throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!(redis.server().command("ZRANGE", requests, "0", "-1") instanceof List<?> line && !line.isEmpty())) {
			assertThat(System.nanoTime() - end).as("the waiter filed its request").isNegative();
			Thread.sleep(10);
		}
		// Its attempt has run; the next comes at most half a claim later.
		Thread.sleep(50);
	}

	private static String key(String pattern) {
		Object keys = redis.server().command("KEYS", pattern);
		assertThat(keys).asInstanceOf(InstanceOfAssertFactories.LIST).hasSize(1);
		return String.valueOf(((List<?>) keys).get(0));
	}

	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connected.connectionFactory()).build();
	}

}
