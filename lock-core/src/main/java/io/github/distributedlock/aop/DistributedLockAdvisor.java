package io.github.distributedlock.aop;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * Applies {@link DistributedLockInterceptor} to the methods that
 * {@code @DistributedLock} applies to. Its order decides which other advice runs inside
 * the lock: to release the lock only after a transaction commits, order it before
 * (lower than) the transaction advisor.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	/**
	 * The default order: just before {@code Ordered.LOWEST_PRECEDENCE}, the default of the
	 * transaction and cache advisors, so that transactions and caching run inside the lock.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final DistributedLockPointcut pointcut;

	private final DistributedLockInterceptor interceptor;

	/**
	 * Create an advisor.
	 * @param methods the locked methods, shared with the interceptor and the validator
	 * @param interceptor the interceptor
	 */
	public DistributedLockAdvisor(LockedMethods methods, DistributedLockInterceptor interceptor) {
		this.pointcut = new DistributedLockPointcut(methods);
		this.interceptor = interceptor;
		setOrder(DEFAULT_ORDER);
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
