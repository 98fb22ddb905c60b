package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ReflectionUtils;

/**
 * Registers the fallback methods of a bean's
 * {@code @DistributedLock(onTimeout = FALLBACK)} methods for reflective invocation, which
 * {@link DefaultLockTimeoutHandler} uses: the fallback is named by a string, so no other
 * ahead-of-time step sees the call.
 */
class FallbackMethodsAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = registeredBean.getBeanClass();
		Set<Method> fallbacks = fallbacks(beanClass);
		if (fallbacks.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			for (Method fallback : fallbacks) {
				generationContext.getRuntimeHints().reflection().registerMethod(fallback, ExecutableMode.INVOKE);
			}
		};
	}

	/**
	 * Return every method a fallback name of the class could resolve to, as
	 * {@link FallbackMethods} looks them up at startup: all methods of that name.
	 */
	static Set<Method> fallbacks(Class<?> beanClass) {
		Set<String> names = new LinkedHashSet<>();
		try {
			ReflectionUtils.doWithMethods(beanClass, (method) -> {
				DistributedLock lock = LockAnnotations.find(method);
				// FALLBACK is never a default: it must be written.
				if (lock != null && lock.onTimeout() == OnTimeout.FALLBACK && !lock.fallback().isEmpty()) {
					names.add(lock.fallback());
				}
			});
		}
		catch (IllegalStateException | LinkageError ex) {
			// A class whose methods refer to absent optional classes can't carry a usable
			// lock.
			return Set.of();
		}
		Set<Method> fallbacks = new LinkedHashSet<>();
		if (!names.isEmpty()) {
			ReflectionUtils.doWithMethods(beanClass, fallbacks::add,
					(method) -> names.contains(method.getName()) && !method.isBridge());
		}
		return fallbacks;
	}

}
