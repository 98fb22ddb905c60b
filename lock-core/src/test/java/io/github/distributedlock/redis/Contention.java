package io.github.distributedlock.redis;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;

/**
 * Threads taking one lock in turn: checks that no two hold it at once and that each token
 * is greater than the one before, and counts the holds and those that waited.
 */
final class Contention {

	final AtomicBoolean inside = new AtomicBoolean();

	final AtomicInteger acquisitions = new AtomicInteger();

	final AtomicInteger waited = new AtomicInteger();

	final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

	private final Function<String, LockRequest> requests;

	private volatile long lastToken = -1;

	/**
	 * Create a contention whose acquisitions use the given requests.
	 * @param requests the request for a key
	 */
	Contention(Function<String, LockRequest> requests) {
		this.requests = requests;
	}

	/**
	 * Take the lock {@code rounds} times, releasing it at once each time. A failed
	 * acquisition or release is recorded in {@link #failures}.
	 */
	void run(RedisLockTemplate template, String key, int rounds) {
		run(template, key, rounds, () -> {
		});
	}

	/**
	 * Take the lock {@code rounds} times, running {@code hold} while holding it each
	 * time. A failed acquisition or release is recorded in {@link #failures}.
	 */
	void run(RedisLockTemplate template, String key, int rounds, Runnable hold) {
		for (int i = 0; i < rounds; i++) {
			try {
				once(template, key, hold);
			}
			catch (RuntimeException ex) {
				this.failures.add(ex.toString());
			}
		}
	}

	/**
	 * Take the lock once and run {@code hold} while holding it; a failed acquisition or
	 * release is thrown.
	 */
	void once(RedisLockTemplate template, String key, Runnable hold) {
		try (LockHandle handle = template.acquire(this.requests.apply(key))) {
			if (!this.inside.compareAndSet(false, true)) {
				this.failures.add("two holders at once, token " + handle.fencingToken());
			}
			if (handle.fencingToken() <= this.lastToken) {
				this.failures.add("token " + handle.fencingToken() + " after " + this.lastToken);
			}
			this.lastToken = handle.fencingToken();
			if (handle.waited()) {
				this.waited.incrementAndGet();
			}
			this.acquisitions.incrementAndGet();
			hold.run();
			this.inside.set(false);
		}
	}

}
