package io.github.distributedlock.aop;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Checks the {@code @DistributedLock} methods of every bean as it is created, so that a
 * broken declaration fails the startup with {@link LockAnnotationException} instead of
 * the first call, and tells the {@link LockTimeoutListener}s of the scopes it found.
 */
final class LockAnnotationValidator implements BeanPostProcessor, SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LockAnnotationValidator.class);

	private final LockedMethods methods;

	private final Supplier<List<LockTimeoutListener>> listeners;

	private final Set<String> declared = ConcurrentHashMap.newKeySet();

	private volatile boolean started;

	/**
	 * Create a validator.
	 * @param methods the locked methods, shared with the interceptor
	 * @param listeners supplies the listeners to tell of the scopes, once the singletons
	 * are created
	 */
	LockAnnotationValidator(LockedMethods methods, Supplier<List<LockTimeoutListener>> listeners) {
		this.methods = methods;
		this.listeners = listeners;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof AopInfrastructureBean)) {
			this.methods.validate(ClassUtils.getUserClass(AopProxyUtils.ultimateTargetClass(bean)));
			if (this.started) {
				declareNewScopes();
			}
		}
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		// Not before: the listeners (meters on a registry) are beans that asking for
		// while beans are still being post-processed would create too early.
		this.started = true;
		declareNewScopes();
	}

	private void declareNewScopes() {
		List<String> scopes = this.methods.scopes().stream().filter(this.declared::add).sorted().toList();
		if (scopes.isEmpty()) {
			return;
		}
		for (LockTimeoutListener listener : this.listeners.get()) {
			for (String scope : scopes) {
				try {
					listener.scopeDeclared(scope);
				}
				catch (RuntimeException failure) {
					logger.warn("LockTimeoutListener " + listener + " failed on scope '" + scope + "'; ignoring",
							failure);
				}
			}
		}
	}

}
