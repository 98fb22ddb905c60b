package io.github.distributedlock.aop;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * An annotated method, checked and prepared once: its scope, its prepared key expression,
 * the settings of its lock requests and what to do on timeout.
 */
final class LockedMethod {

	private final Method method;

	private final Class<?> targetClass;

	private final String origin;

	private final LockRequest template;

	private final @Nullable LockKeyExpression key;

	private final String keySource;

	private final OnTimeout onTimeout;

	private final @Nullable Method fallback;

	private final LockedResult result;

	LockedMethod(Method method, Class<?> targetClass, String origin, LockRequest template,
			@Nullable LockKeyExpression key, String keySource, OnTimeout onTimeout, @Nullable Method fallback,
			LockedResult result) {
		this.method = method;
		this.targetClass = targetClass;
		this.origin = origin;
		this.template = template;
		this.key = key;
		this.keySource = keySource;
		this.onTimeout = onTimeout;
		this.fallback = fallback;
		this.result = result;
	}

	Method method() {
		return this.method;
	}

	String scope() {
		return this.template.name().scope();
	}

	OnTimeout onTimeout() {
		return this.onTimeout;
	}

	@Nullable Method fallback() {
		return this.fallback;
	}

	/**
	 * Return what the method returns, which decides how long its lock is held.
	 */
	LockedResult result() {
		return this.result;
	}

	/**
	 * Return the requests of one call: one, or one per element when the key expression
	 * gives a collection or an array.
	 * @throws IllegalArgumentException if the key can't be computed or is null or empty;
	 * the message names the lock and the method
	 */
	List<LockRequest> requests(Object target, @Nullable Object[] args) {
		if (this.key == null) {
			return List.of(this.template);
		}
		Object value;
		try {
			value = this.key.evaluate(new LockKeyRoot(this.method, args, target, this.targetClass));
		}
		catch (RuntimeException ex) {
			throw invalidKey("could not be evaluated: " + ex.getMessage(), ex);
		}
		List<String> keys = render(value);
		List<LockRequest> requests = new ArrayList<>(keys.size());
		for (String key : keys) {
			try {
				requests.add(this.template.toBuilder().key(key).build());
			}
			catch (IllegalArgumentException ex) {
				throw invalidKey("gave an unusable key: " + ex.getMessage(), ex);
			}
		}
		return requests;
	}

	private List<String> render(@Nullable Object value) {
		if (value == null) {
			throw invalidKey("evaluated to null; a lock key must not be null", null);
		}
		if (!(value instanceof Collection<?>) && !value.getClass().isArray()) {
			return List.of(value.toString());
		}
		List<Object> elements = new ArrayList<>();
		if (value instanceof Collection<?> collection) {
			elements.addAll(collection);
		}
		else {
			for (int i = 0; i < Array.getLength(value); i++) {
				elements.add(Array.get(value, i));
			}
		}
		if (elements.isEmpty()) {
			throw invalidKey("evaluated to an empty " + (value.getClass().isArray() ? "array" : "collection")
					+ "; there is nothing to lock", null);
		}
		List<String> keys = new ArrayList<>(elements.size());
		for (Object element : elements) {
			if (element == null) {
				throw invalidKey("evaluated to a collection with a null element; a lock key must not be null", null);
			}
			keys.add(element.toString());
		}
		return keys;
	}

	private IllegalArgumentException invalidKey(String problem, @Nullable Throwable cause) {
		return new IllegalArgumentException(
				"Lock '" + scope() + "' of " + this.origin + ": key '" + this.keySource + "' " + problem, cause);
	}

	@Override
	public String toString() {
		return "LockedMethod[" + this.origin + ", " + this.template + ", key=" + this.keySource + "]";
	}

}
