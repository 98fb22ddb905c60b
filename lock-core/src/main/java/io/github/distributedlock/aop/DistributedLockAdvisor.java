package io.github.distributedlock.aop;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * Applies {@link DistributedLockInterceptor} to the methods that {@code @DistributedLock}
 * applies to. Its order decides which other advice runs inside the lock: to release the
 * lock only after a transaction commits, order it before (lower than) the transaction
 * advisor.
 */
final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	private final DistributedLockPointcut pointcut;

	private final DistributedLockInterceptor interceptor;

	/**
	 * Create an advisor.
	 * @param methods the locked methods, shared with the interceptor and the validator
	 * @param interceptor the interceptor
	 */
	DistributedLockAdvisor(LockedMethods methods, DistributedLockInterceptor interceptor) {
		this.pointcut = new DistributedLockPointcut(methods);
		this.interceptor = interceptor;
		setOrder(DistributedLockAspectConfiguration.DEFAULT_ORDER);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
