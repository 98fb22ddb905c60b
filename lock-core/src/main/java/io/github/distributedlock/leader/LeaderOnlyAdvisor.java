package io.github.distributedlock.leader;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Applies {@link LeaderOnly @LeaderOnly} to the annotated methods of beans, through
 * Spring AOP auto-proxying. An annotated method without a role, or returning a primitive
 * other than {@code void}, fails the proxying of its bean with
 * {@link IllegalStateException}. Once the singletons are created, a role that an
 * annotated method of one of them names, but that no initiator contends for and that this
 * instance does not abstain from, fails the startup with
 * {@link UnknownLeaderRoleException}.
 */
public final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor implements SmartInitializingSingleton {

	private final Pointcut pointcut = new LeaderOnlyPointcut();

	private final InitiatorLeadership leadership;

	private final LeaderOnlyInterceptor interceptor;

	// The methods proxied so far, by role.
	private final Map<String, Set<String>> declared = new ConcurrentHashMap<>();

	/**
	 * Create an advisor.
	 * @param initiators the initiators, looked up on each call
	 */
	public LeaderOnlyAdvisor(Iterable<LeaderInitiator> initiators) {
		this(initiators, List.of());
	}

	/**
	 * Create an advisor that also skips the calls of the roles this instance abstains
	 * from: known, but left to other instances.
	 * @param initiators the initiators, looked up on each call
	 * @param abstaining the roles this instance abstains from, looked up on each call
	 */
	public LeaderOnlyAdvisor(Iterable<LeaderInitiator> initiators, Iterable<String> abstaining) {
		this.leadership = new InitiatorLeadership(initiators, abstaining);
		this.interceptor = new LeaderOnlyInterceptor(this.leadership);
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
	 * Refuse the roles that no initiator contends for and that this instance does not
	 * abstain from, naming the methods.
	 * @throws UnknownLeaderRoleException if there is one
	 */
	@Override
	public void afterSingletonsInstantiated() {
		Map<String, List<String>> unknown = new TreeMap<>();
		this.declared.forEach((role, methods) -> {
			if (!this.leadership.knows(role)) {
				unknown.put(role, List.copyOf(methods));
			}
		});
		if (!unknown.isEmpty()) {
			throw new UnknownLeaderRoleException(unknown);
		}
	}

	/**
	 * Matches the methods annotated with {@link LeaderOnly @LeaderOnly}, checks them and
	 * notes their roles.
	 */
	private final class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
			if (annotation == null) {
				return false;
			}
			LeaderOnlyInterceptor.check(specific, annotation);
			LeaderOnlyAdvisor.this.declared.computeIfAbsent(annotation.role(), (role) -> ConcurrentHashMap.newKeySet())
				.add(LeaderOnlyInterceptor.describe(specific));
			return true;
		}

	}

}
