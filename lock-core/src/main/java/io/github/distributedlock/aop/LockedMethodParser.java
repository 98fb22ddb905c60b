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
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockRequest;
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
		OnTimeout onTimeout = onTimeout(lock, defaults, found);
		LockKeyExpression key = null;
		if (!lock.key().isEmpty()) {
			try {
				key = this.keyResolver.get().prepare(lock.key(), method, targetClass);
			}
			catch (IllegalArgumentException ex) {
				found.add(ex.getMessage());
			}
		}
		boolean defaultSkip = defaults.isScheduled() && lock.onTimeout().length == 0;
		LockedResult result = LockedReturnTypes.check(method, targetClass, onTimeout, defaultSkip, found);
		if (result.isReactive() && !this.reactiveTemplate.getAsBoolean()) {
			found.add(((result == LockedResult.SUSPEND_FUNCTION) ? "is a Kotlin suspend function"
					: "returns " + method.getReturnType().getSimpleName())
					+ ", whose lock is held through a ReactiveLockTemplate, but the context has no ReactiveLockTemplate "
					+ "bean; define one (Spring Boot does when there is a ReactiveRedisConnectionFactory)");
		}
		if (result.isReactive() && lock.fair()) {
			found.add("is held through a ReactiveLockTemplate, which takes exclusive, read and write locks and "
					+ "permits, but not fair locks; remove fair = true, or lock a blocking method");
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
		else if (lock.waitTime().length == 0 && lock.waitTimeString().isEmpty()) {
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
		if (single("waitStrategy", lock.waitStrategy().length, found)) {
			request.waitStrategy(lock.waitStrategy()[0]);
		}
		if (single("reentrant", lock.reentrant().length, found)) {
			request.reentrant(lock.reentrant()[0]);
		}
		if (single("progressAwareTimeout", lock.progressAwareTimeout().length, found)) {
			request.progressAwareTimeout(lock.progressAwareTimeout()[0]);
		}
		if (single("autoRenew", lock.autoRenew().length, found)) {
			request.autoRenew(lock.autoRenew()[0]);
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
			found.add("scope '" + scope + "' is not usable: " + ex.getMessage());
			return null;
		}
	}

	private static OnTimeout onTimeout(DistributedLock lock, ScheduledMethodDefaults defaults, Problems found) {
		return single("onTimeout", lock.onTimeout().length, found) ? lock.onTimeout()[0] : defaults.onTimeout();
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

	private @Nullable Duration duration(String name, long[] values, String text, DistributedLock lock, Problems found) {
		if (values.length > 0 && !text.isEmpty()) {
			found.add(name + " and " + name + "String are both set; use one");
			return null;
		}
		if (values.length > 1) {
			single(name, values.length, found);
			return null;
		}
		if (values.length == 1) {
			return fromNumber(name, values[0], lock, found);
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

	private static boolean single(String name, int count, Problems found) {
		if (count > 1) {
			found.add(name + " has " + count + " values; give at most one");
		}
		return count == 1;
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
