package io.github.distributedlock.aop;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Checks the {@code @DistributedLock} methods of every bean as it is created, so that a
 * broken declaration fails the startup with {@link LockAnnotationException} instead of
 * the first call.
 */
final class LockAnnotationValidator implements BeanPostProcessor {

	private final LockedMethods methods;

	/**
	 * Create a validator.
	 * @param methods the locked methods, shared with the interceptor
	 */
	LockAnnotationValidator(LockedMethods methods) {
		this.methods = methods;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof AopInfrastructureBean)) {
			this.methods.validate(ClassUtils.getUserClass(AopProxyUtils.ultimateTargetClass(bean)));
		}
		return bean;
	}

}
