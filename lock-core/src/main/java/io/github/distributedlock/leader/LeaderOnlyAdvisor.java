package io.github.distributedlock.leader;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Applies {@link LeaderOnly @LeaderOnly} to the annotated methods of beans, through
 * Spring AOP auto-proxying. An annotated method without a role, or returning a primitive
 * other than {@code void}, fails the proxying of its bean with
 * {@link IllegalStateException}.
 */
public final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new LeaderOnlyPointcut();

	private final LeaderOnlyInterceptor interceptor;

	/**
	 * Create an advisor.
	 * @param initiators the initiators, looked up on each call
	 */
	public LeaderOnlyAdvisor(Iterable<LeaderInitiator> initiators) {
		this.interceptor = new LeaderOnlyInterceptor(new InitiatorLeadership(initiators));
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	/**
	 * Matches the methods annotated with {@link LeaderOnly @LeaderOnly} and checks them.
	 */
	private static final class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
			if (annotation == null) {
				return false;
			}
			LeaderOnlyInterceptor.check(specific, annotation);
			return true;
		}

	}

}
