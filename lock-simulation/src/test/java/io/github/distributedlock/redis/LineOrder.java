package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.simulation.RedisModel;
import org.jspecify.annotations.Nullable;

/**
 * The oracle of a lock's line of requests: a request keeps its place from its first
 * filing (docs/design/waiting-and-hand-off.md: requests are ordered by first filing,
 * {@code ZADD NX}, so filing again keeps a waiter's place).
 * <p>
 * Each script run is checked on every line it names, right before and right after it (a
 * script is atomic): a request in the line before and after keeps its score; a request
 * the run files comes after every request that was there; and a request the run takes out
 * of the line is one it may take: the run's own (an attempt's that won the lock, a
 * withdrawal's, a multi-lock's filed in another line), the one the lock is now reserved
 * for, or a malformed one, which {@code pass_on} drops.
 */
final class LineOrder {

	private final RedisModel redis;

	private final Consumer<String> violated;

	private long refilings;

	LineOrder(RedisModel redis, Consumer<String> violated) {
		this.redis = redis;
		this.violated = violated;
	}

	/**
	 * Run a script call, and check the lines it names.
	 * @param call the call
	 * @param run runs it on Redis and returns its reply
	 * @return its reply
	 */
	@Nullable Object run(ScriptCall call, Supplier<@Nullable Object> run) {
		List<String> locks = new ArrayList<>();
		for (String key : call.keys()) {
			if (call.keys().contains(LockKeys.requests(key))) {
				locks.add(key);
			}
		}
		if (locks.isEmpty()) {
			return run.get();
		}
		List<Map<String, Double>> before = new ArrayList<>();
		for (String lock : locks) {
			before.add(line(LockKeys.requests(lock)));
		}
		Object reply = run.get();
		for (int i = 0; i < locks.size(); i++) {
			check(call, locks.get(i), before.get(i));
		}
		return reply;
	}

	/**
	 * Return how many runs filed a request that was in the line already, each checked to
	 * keep its place.
	 */
	long refilings() {
		return this.refilings;
	}

	private void check(ScriptCall call, String lock, Map<String, Double> before) {
		Map<String, Double> after = line(LockKeys.requests(lock));
		String what = call.script().name() + " on " + lock + " (" + String.join(" ", call.argv()) + ")";
		double last = before.values().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NEGATIVE_INFINITY);
		for (Map.Entry<String, Double> request : after.entrySet()) {
			Double was = before.get(request.getKey());
			if (was == null && request.getValue() < last) {
				this.violated.accept(what + " filed " + request.getKey() + " at " + request.getValue()
						+ ", ahead of a request filed at " + last
						+ ": a request keeps its place from its first filing");
				return;
			}
			if (was != null && !was.equals(request.getValue())) {
				this.violated.accept(what + " moved " + request.getKey() + " from " + was + " to " + request.getValue()
						+ ": a request keeps its place from its first filing");
				return;
			}
			if (was != null && call.argv().contains(request.getKey())) {
				this.refilings++;
			}
		}
		Object reserved = this.redis.inspect("HGET", lock, "reserved");
		for (String request : before.keySet()) {
			if (!after.containsKey(request) && !call.argv().contains(request) && !request.equals(reserved)
					&& HandOffOrder.WELL_FORMED.matcher(request).matches()) {
				this.violated.accept(what + " took " + request + " out of the line, which is neither its own"
						+ " request nor the one the lock is reserved for: a request keeps its place from its first"
						+ " filing");
				return;
			}
		}
	}

	private Map<String, Double> line(String requests) {
		Map<String, Double> scores = new LinkedHashMap<>();
		Object line = this.redis.inspect("ZRANGE", requests, "0", "-1", "WITHSCORES");
		if (line instanceof List<?> members) {
			for (int i = 0; i + 1 < members.size(); i += 2) {
				scores.put(String.valueOf(members.get(i)), Double.valueOf(String.valueOf(members.get(i + 1))));
			}
		}
		return scores;
	}

}
