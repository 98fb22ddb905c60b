package io.github.distributedlock.sample;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.github.distributedlock.LockTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * An expensive lookup cached in Redis, computed by one caller across all instances: the
 * cache-stampede pattern. Callers that had to wait for the lock look in the cache again
 * before computing, because the caller before them has almost certainly filled it.
 */
@Service
public class PriceService {

	private final LockTemplate locks;

	private final StringRedisTemplate redis;

	private final SampleProperties properties;

	PriceService(LockTemplate locks, StringRedisTemplate redis, SampleProperties properties) {
		this.locks = locks;
		this.redis = redis;
		this.properties = properties;
	}

	public Quote quote(String symbol) {
		String cached = cached(symbol);
		if (cached != null) {
			return new Quote(symbol, cached, "cache");
		}
		return this.locks.execute("price", symbol, (lock) -> {
			if (lock.waited()) {
				String filled = cached(symbol);
				if (filled != null) {
					return new Quote(symbol, filled, "cache after waiting");
				}
			}
			String price = compute();
			this.redis.opsForValue().set(key(symbol), price, Duration.ofMinutes(1));
			return new Quote(symbol, price, "computed by " + this.properties.instance());
		});
	}

	private @Nullable String cached(String symbol) {
		return this.redis.opsForValue().get(key(symbol));
	}

	private String compute() {
		try {
			Thread.sleep(this.properties.priceMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while computing a price", ex);
		}
		return String.format("%.2f", 100 + ThreadLocalRandom.current().nextDouble(50));
	}

	private static String key(String symbol) {
		return "sample:price:" + symbol;
	}

	/**
	 * A price and where it came from.
	 *
	 * @param symbol the symbol
	 * @param price the price
	 * @param source "cache", "cache after waiting" or "computed by &lt;instance&gt;"
	 */
	public record Quote(String symbol, String price, String source) {

	}

}
