package io.github.distributedlock.sample;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * A configuration store that protects itself with fencing tokens: it remembers the
 * highest token that wrote each entry and refuses writes that carry a lower one. A writer
 * whose lock lease ran out while it was paused (GC, a slow disk) therefore cannot
 * overwrite the work of the holder that came after it. This is how a resource should use
 * the tokens the lock hands out.
 */
@Component
public class FencedConfigStore {

	private static final RedisScript<Long> WRITE = RedisScript.of("""
			local highest = tonumber(redis.call('HGET', KEYS[1], 'token') or '0')
			if tonumber(ARGV[1]) < highest then
				return 0
			end
			redis.call('HSET', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	FencedConfigStore(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Write an entry if the token is not older than the last writer's.
	 * @param key the entry
	 * @param value the value
	 * @param fencingToken the writer's fencing token
	 * @return whether the write was accepted
	 */
	public boolean write(String key, String value, long fencingToken) {
		Long accepted = this.redis.execute(WRITE, List.of("sample:config:" + key), Long.toString(fencingToken), value);
		return accepted != null && accepted == 1;
	}

	public @Nullable String read(String key) {
		Object value = this.redis.opsForHash().get("sample:config:" + key, "value");
		return (value != null) ? value.toString() : null;
	}

}
