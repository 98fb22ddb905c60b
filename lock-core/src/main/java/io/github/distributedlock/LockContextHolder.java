package io.github.distributedlock;

import java.util.ArrayDeque;

import org.jspecify.annotations.Nullable;

/**
 * Per-thread stack of the lock contexts that are open, innermost on top.
 */
final class LockContextHolder {

	private static final ThreadLocal<ArrayDeque<LockContext>> CONTEXTS = new ThreadLocal<>();

	private LockContextHolder() {
	}

	static @Nullable LockContext peek() {
		ArrayDeque<LockContext> contexts = CONTEXTS.get();
		return (contexts != null) ? contexts.peek() : null;
	}

	static <T extends @Nullable Object> T call(LockContext context, LockCallback<T> callback) {
		ArrayDeque<LockContext> contexts = CONTEXTS.get();
		if (contexts == null) {
			contexts = new ArrayDeque<>(2);
			CONTEXTS.set(contexts);
		}
		contexts.push(context);
		try {
			return callback.doInLock(context);
		}
		finally {
			contexts.pop();
			if (contexts.isEmpty()) {
				// Don't leave a deque behind on pooled threads.
				CONTEXTS.remove();
			}
		}
	}

}
