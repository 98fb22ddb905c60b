package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.Flag;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.DistributedLock.Waiting;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Checks one {@code @DistributedLock} declaration and prepares it. Every problem found is
 * collected, so one startup failure reports them all.
 */
final class LockedMethodParser {

	/**
	 * The value of {@code expire} and {@code waitTime} that leaves them unset.
	 */
	private static final long UNSET = -1;

	private final Supplier<LockKeyResolver> keyResolver;

	private final @Nullable StringValueResolver placeholders;

	private final BooleanSupplier reactiveTemplate;

	LockedMethodParser(Supplier<LockKeyResolver> keyResolver, @Nullable StringValueResolver placeholders,
			BooleanSupplier reactiveTemplate) {
		this.keyResolver = keyResolver;
		this.placeholders = placeholders;
		this.reactiveTemplate = reactiveTemplate;
	}

	/**
	 * Prepare a method, or add what is wrong with it to {@code problems}.
	 * @param method the most specific method of the target class
	 * @return the prepared method, or {@code null} if there were problems
	 */
	@Nullable LockedMethod parse(Method method, Class<?> targetClass, DistributedLock lock, List<String> problems) {
		Problems found = new Problems(describe(method, targetClass));
		checkProxyable(method, found);
		String origin = ClassUtils.getUserClass(targetClass).getSimpleName() + "." + method.getName();
		ScheduledMethodDefaults defaults = ScheduledMethodDefaults.of(method);
		LockRequest request = request(lock, origin, defaults, found);
		OnTimeout onTimeout = onTimeout(lock, defaults);
		LockKeyExpression key = null;
		if (!lock.key().isEmpty()) {
			try {
				key = this.keyResolver.get().prepare(lock.key(), method, targetClass);
			}
			catch (IllegalArgumentException ex) {
				found.add(ex.getMessage());
			}
		}
		boolean defaultSkip = defaults.isScheduled() && lock.onTimeout() == OnTimeout.DEFAULT;
		LockedResult result = LockedReturnTypes.check(method, targetClass, onTimeout, defaultSkip, found);
		if (result.isReactive() && !this.reactiveTemplate.getAsBoolean()) {
			found.add(((result == LockedResult.SUSPEND_FUNCTION) ? "is a Kotlin suspend function"
					: "returns " + method.getReturnType().getSimpleName())
					+ ", whose lock is held through a ReactiveLockTemplate, but the context has no ReactiveLockTemplate "
					+ "bean; define one (Spring Boot does when there is a ReactiveRedisConnectionFactory)");
		}
		Method fallback = FallbackMethods.find(method, targetClass, lock, onTimeout, found);
		if (found.isEmpty() && request != null) {
			return new LockedMethod(method, targetClass, origin, request, key, lock.key(), onTimeout, fallback, result);
		}
		problems.addAll(found.messages);
		return null;
	}

	/**
	 * Return the request every call starts from: the scope and the settings the
	 * annotation gives, and the wait time of a scheduled job; the rest is left to the
	 * template's defaults.
	 */
	private @Nullable LockRequest request(DistributedLock lock, String origin, ScheduledMethodDefaults defaults,
			Problems found) {
		String scope = lock.scope().isEmpty() ? origin : lock.scope();
		LockRequest.Builder request = LockRequest.builder(scope).origin(origin);
		durations(lock, defaults, request, found);
		WaitStrategy waitStrategy = waitStrategy(lock.waitStrategy());
		if (waitStrategy != null) {
			request.waitStrategy(waitStrategy);
		}
		Boolean reentrant = flag(lock.reentrant());
		if (reentrant != null) {
			request.reentrant(reentrant);
		}
		Boolean progressAwareTimeout = flag(lock.progressAwareTimeout());
		if (progressAwareTimeout != null) {
			request.progressAwareTimeout(progressAwareTimeout);
		}
		Boolean autoRenew = flag(lock.autoRenew());
		if (autoRenew != null) {
			request.autoRenew(autoRenew);
		}
		request.mode(lock.mode()).fair(lock.fair()).onLeaseLost(lock.onLeaseLost());
		if (lock.permits() < 0) {
			found.add("permits must be at least 1 (or 0 for a lock), but was " + lock.permits());
		}
		else if (lock.permits() > 0) {
			request.permits(lock.permits());
		}
		try {
			return request.build();
		}
		catch (IllegalArgumentException ex) {
			// The message names the lock, shortened: a scope may be thousands of
			// characters.
			found.add("scope is not usable: " + ex.getMessage());
			return null;
		}
	}

	/**
	 * Set the lease, the wait time and the minimum hold the annotation gives, and the
	 * wait time of a scheduled job.
	 */
	private void durations(DistributedLock lock, ScheduledMethodDefaults defaults, LockRequest.Builder request,
			Problems found) {
		Duration lease = duration("expire", lock.expire(), lock.expireString(), lock, found);
		if (lease != null && lease.toMillis() < 1) {
			found.add("expire must be at least 1 ms, but was " + lease);
		}
		else if (lease != null) {
			request.lease(lease);
		}
		Duration wait = duration("waitTime", lock.waitTime(), lock.waitTimeString(), lock, found);
		if (wait != null && wait.isNegative()) {
			found.add("waitTime must not be negative, but was " + wait);
		}
		else if (wait != null) {
			request.waitTime(wait);
		}
		else if (lock.waitTime() == UNSET && lock.waitTimeString().isEmpty()) {
			Duration defaultWait = defaults.waitTime();
			if (defaultWait != null) {
				request.waitTime(defaultWait);
			}
		}
		Duration holdAtLeast = parse("holdAtLeast", lock.holdAtLeast(), lock, found);
		if (holdAtLeast != null && holdAtLeast.isNegative()) {
			found.add("holdAtLeast must not be negative, but was " + holdAtLeast);
		}
		else if (holdAtLeast != null && lease != null && holdAtLeast.compareTo(lease) > 0) {
			found.add("holdAtLeast " + holdAtLeast + " is longer than expire " + lease
					+ "; the lease caps how long the lock stays taken, so give an expire of at least holdAtLeast");
		}
		else if (holdAtLeast != null) {
			request.holdAtLeast(holdAtLeast);
		}
	}

	private static OnTimeout onTimeout(DistributedLock lock, ScheduledMethodDefaults defaults) {
		return (lock.onTimeout() != OnTimeout.DEFAULT) ? lock.onTimeout() : defaults.onTimeout();
	}

	/**
	 * Return the wait strategy a {@link Waiting} names.
	 * @return the strategy, or {@code null} for the template's default
	 */
	static @Nullable WaitStrategy waitStrategy(Waiting waiting) {
		return switch (waiting) {
			case DEFAULT -> null;
			case PUBSUB -> WaitStrategy.PUBSUB;
			case KEYSPACE_EVENTS -> WaitStrategy.KEYSPACE_EVENTS;
			case POLLING -> WaitStrategy.POLLING;
		};
	}

	/**
	 * Return the value a {@link Flag} sets.
	 * @return the value, or {@code null} for the template's default
	 */
	private static @Nullable Boolean flag(Flag flag) {
		return switch (flag) {
			case DEFAULT -> null;
			case TRUE -> Boolean.TRUE;
			case FALSE -> Boolean.FALSE;
		};
	}

	private static void checkProxyable(Method method, Problems found) {
		String source = LockAnnotations.isFromClass(method) ? "its class is annotated, but it " : "it ";
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers)) {
			found.add(source + "is private, so no Spring AOP proxy can intercept it");
		}
		if (Modifier.isStatic(modifiers)) {
			found.add(source + "is static, so no Spring AOP proxy can intercept it");
		}
		else if (Modifier.isFinal(modifiers)) {
			found.add(source + "is final, so a class-based proxy cannot intercept it"
					+ (LockAnnotations.isFromClass(method) ? "; exclude it with @DistributedLock.Exclude" : ""));
		}
	}

	private @Nullable Duration duration(String name, long value, String text, DistributedLock lock, Problems found) {
		if (value < UNSET) {
			found.add(name + " must not be negative (-1, the default, leaves it unset), but was " + value);
			return null;
		}
		if (value != UNSET && !text.isEmpty()) {
			found.add(name + " and " + name + "String are both set; use one");
			return null;
		}
		if (value != UNSET) {
			return fromNumber(name, value, lock, found);
		}
		return parse(name + "String", text, lock, found);
	}

	private @Nullable Duration parse(String attribute, String text, DistributedLock lock, Problems found) {
		if (text.isEmpty()) {
			return null;
		}
		String resolved = (this.placeholders != null) ? this.placeholders.resolveStringValue(text) : text;
		try {
			return DurationFormatterUtils.detectAndParse((resolved != null) ? resolved.trim() : text,
					DurationFormat.Unit.fromChronoUnit(lock.timeUnit().toChronoUnit()));
		}
		catch (RuntimeException ex) {
			found
				.add(attribute + " '" + text + "' is not a duration (such as 10s, 500ms or PT10S): " + ex.getMessage());
			return null;
		}
	}

	private static @Nullable Duration fromNumber(String name, long value, DistributedLock lock, Problems found) {
		if (name.equals("waitTime") && value == DistributedLock.WAIT_INDEFINITELY) {
			return LockRequest.WAIT_INDEFINITELY;
		}
		try {
			return Duration.of(value, lock.timeUnit().toChronoUnit());
		}
		catch (ArithmeticException ex) {
			found.add(name + " " + value + " " + lock.timeUnit() + " is too long");
			return null;
		}
	}

	static String describe(Method method, Class<?> targetClass) {
		return ClassUtils.getUserClass(targetClass).getSimpleName() + "." + method.getName() + "("
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
				+ ")";
	}

	/**
	 * The problems of one method, each prefixed with the method.
	 */
	static final class Problems {

		private final String method;

		private final List<String> messages = new ArrayList<>();

		Problems(String method) {
			this.method = method;
		}

		void add(@Nullable String problem) {
			this.messages.add(this.method + ": " + problem);
		}

		boolean isEmpty() {
			return this.messages.isEmpty();
		}

	}

}
