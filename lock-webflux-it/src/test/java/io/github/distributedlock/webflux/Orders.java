package io.github.distributedlock.webflux;

import java.time.Duration;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.Flag;
import io.github.distributedlock.ReactiveLockContext;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Processes an order under the lock of its id. The critical section appends
 * {@code enter <token> <instance> <millis>} and {@code exit ...} to the Redis list
 * {@code sections:<id>} with plain {@code RPUSH}es, so the list is the order in which
 * Redis saw every section of the id begin and end, across all instances.
 */
@Service
public class Orders {

	private final ReactiveStringRedisTemplate redis;

	private final String instance;

	Orders(ReactiveStringRedisTemplate redis, @Value("${orders.instance}") String instance) {
		this.redis = redis;
		this.instance = instance;
	}

	/**
	 * Record the section's start, hold the lock for the given time, record its end.
	 * @param id the order id, the lock's key
	 * @param holdMillis how long the section lasts
	 * @return the fencing token of the hold
	 */
	@DistributedLock(scope = "orders", key = "#id", waitTime = 20, expire = 30, autoRenew = Flag.FALSE)
	public Mono<Long> process(String id, long holdMillis) {
		return ReactiveLockContext.current()
			.flatMap((lock) -> record(id, "enter", lock.fencingToken()).then(Mono.delay(Duration.ofMillis(holdMillis)))
				.then(record(id, "exit", lock.fencingToken()))
				.thenReturn(lock.fencingToken()));
	}

	private Mono<Long> record(String id, String event, long token) {
		String entry = event + " " + token + " " + this.instance + " " + System.currentTimeMillis();
		return this.redis.opsForList().rightPush("sections:" + id, entry);
	}

}
