package io.github.distributedlock.redis;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.blocking.WaitQueue;
import io.github.distributedlock.redis.blocking.WaitQueues;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for a head of a local line whose thread gets back late: a call to try that came
 * before its wait time ran out still leads to an attempt.
 */
class LateWakeUpTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	/**
	 * The head was called to try (its reservation) before its wait time ran out, but its
	 * thread got back only after it (descheduled, a GC pause: here held off the queue's
	 * signal lock). It tries once more, as it does after its timer, and takes the lock
	 * reserved for it, rather than give up and pass the reservation on.
	 */
	@Test
	void headCalledBeforeItsDeadlineButWokenAfterItStillTries() throws Exception {
		try (RedisLockTemplate holder = template(); RedisLockTemplate waiter = template()) {
			LockHandle hold = holder
				.acquire(LockRequest.builder("review").key("late").lease(Duration.ofSeconds(10)).build());
			Future<LockHandle> waiting = this.connected.executor()
				.submit(() -> waiter
					.acquire(LockRequest.builder("review").key("late").waitTime(Duration.ofMillis(1500)).build()));
			Thread.sleep(500);
			WaitQueue queue = onlyQueue(waiter);
			ReentrantLock signalLock = (ReentrantLock) field(WaitQueue.class, "signalLock").get(queue);
			signalLock.lock();
			try {
				// The release reserves the lock for the waiter's request and tells it.
				hold.close();
				queue.signal();
				// The waiter's deadline passes while its thread waits for the lock.
				Thread.sleep(1500);
			}
			finally {
				signalLock.unlock();
			}
			try (LockHandle taken = waiting.get(5, TimeUnit.SECONDS)) {
				assertThat(taken.waited()).isTrue();
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static WaitQueue onlyQueue(RedisLockTemplate template) throws Exception {
		WaitQueues queues = (WaitQueues) field(RedisLockTemplate.class, "queues").get(template);
		Map<String, WaitQueue> map = (Map<String, WaitQueue>) field(WaitQueues.class, "queues").get(queues);
		assertThat(map).hasSize(1);
		return map.values().iterator().next();
	}

	private static Field field(Class<?> type, String name) throws Exception {
		Field field = type.getDeclaredField(name);
		field.setAccessible(true);
		return field;
	}

	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connected.connectionFactory())
			.subscriptionLinger(Duration.ofSeconds(30))
			.build();
	}

}
