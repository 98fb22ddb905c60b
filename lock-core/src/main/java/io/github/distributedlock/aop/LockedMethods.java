package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.distributedlock.DistributedLock;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * The {@code @DistributedLock} methods of the application, each checked and prepared once
 * per target class and then cached. Shared by {@link LockAnnotationValidator}, which
 * checks every bean class when the context starts, and
 * {@link DistributedLockInterceptor}. Thread-safe.
 */
final class LockedMethods {

	private static final Object NOT_LOCKED = new Object();

	private final LockedMethodParser parser;

	private final Map<MethodClassKey, Object> methods = new ConcurrentHashMap<>(256);

	private final Set<Class<?>> validated = ConcurrentHashMap.newKeySet();

	private final Set<String> scopes = ConcurrentHashMap.newKeySet();

	/**
	 * Create the cache.
	 * @param keyResolver supplies the key resolver, on first use
	 * @param placeholders resolves {@code ${...}} placeholders in duration strings, or
	 * {@code null}
	 */
	LockedMethods(Supplier<LockKeyResolver> keyResolver, @Nullable StringValueResolver placeholders) {
		this(keyResolver, placeholders, () -> true);
	}

	/**
	 * Create the cache, refusing methods whose lock needs a
	 * {@link io.github.distributedlock.ReactiveLockTemplate} when there is none.
	 * @param keyResolver supplies the key resolver, on first use
	 * @param placeholders resolves {@code ${...}} placeholders in duration strings, or
	 * {@code null}
	 * @param reactiveTemplate tells whether the context has a reactive template
	 */
	LockedMethods(Supplier<LockKeyResolver> keyResolver, @Nullable StringValueResolver placeholders,
			BooleanSupplier reactiveTemplate) {
		this.parser = new LockedMethodParser(SingletonSupplier.of(keyResolver), placeholders, reactiveTemplate);
	}

	/**
	 * Return whether a class may have locked methods: a cheap filter.
	 * @param targetClass the class
	 * @return {@code false} if it certainly has none
	 */
	boolean isCandidateClass(Class<?> targetClass) {
		return AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class);
	}

	/**
	 * Return whether calls of a method on a target class take a lock, without checking
	 * the declaration.
	 * @param method the method, possibly from an interface
	 * @param targetClass the target class, if known
	 * @return whether the method is locked
	 */
	boolean isLocked(Method method, @Nullable Class<?> targetClass) {
		return LockAnnotations.find(AopUtils.getMostSpecificMethod(method, targetClass)) != null;
	}

	/**
	 * Check every locked method of a class, once.
	 * @param targetClass the user class of a bean
	 * @throws LockAnnotationException listing every problem found
	 */
	void validate(Class<?> targetClass) {
		if (this.validated.contains(targetClass) || !isCandidateClass(targetClass)) {
			return;
		}
		Method[] declared;
		try {
			declared = ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS);
		}
		catch (IllegalStateException | LinkageError ex) {
			// A class whose methods refer to absent optional classes can't carry a usable
			// lock.
			this.validated.add(targetClass);
			return;
		}
		List<String> problems = new ArrayList<>();
		for (Method method : declared) {
			find(method, targetClass, problems);
		}
		if (!problems.isEmpty()) {
			throw new LockAnnotationException(targetClass, problems);
		}
		this.validated.add(targetClass);
	}

	/**
	 * Return the prepared lock of a method called on a target class.
	 * @return the locked method, or {@code null} if the method takes no lock
	 * @throws LockAnnotationException if the declaration is invalid
	 */
	@Nullable LockedMethod find(Method method, Class<?> targetClass) {
		List<String> problems = new ArrayList<>();
		LockedMethod locked = find(method, targetClass, problems);
		if (!problems.isEmpty()) {
			throw new LockAnnotationException(targetClass, problems);
		}
		return locked;
	}

	private @Nullable LockedMethod find(Method method, Class<?> targetClass, List<String> problems) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.methods.get(cacheKey);
		if (cached != null) {
			return (cached != NOT_LOCKED) ? (LockedMethod) cached : null;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		DistributedLock lock = LockAnnotations.find(specific);
		if (lock == null) {
			this.methods.put(cacheKey, NOT_LOCKED);
			return null;
		}
		LockedMethod locked = this.parser.parse(specific, targetClass, lock, problems);
		if (locked != null) {
			this.methods.put(cacheKey, locked);
			this.scopes.add(locked.scope());
		}
		return locked;
	}

	/**
	 * Return the scopes of the locked methods found so far.
	 * @return a copy of the scopes
	 */
	Set<String> scopes() {
		return Set.copyOf(this.scopes);
	}

}
