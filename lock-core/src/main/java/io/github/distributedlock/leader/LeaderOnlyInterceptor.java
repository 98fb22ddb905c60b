package io.github.distributedlock.leader;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.LeaseLossPolicy;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Runs a {@link LeaderOnly @LeaderOnly} method in a section of the role's current term,
 * or skips it when this instance does not lead.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LeaderOnlyInterceptor.class);

	private final InitiatorLeadership leadership;

	private final Map<Method, Target> targets = new ConcurrentHashMap<>();

	LeaderOnlyInterceptor(InitiatorLeadership leadership) {
		this.leadership = leadership;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Target target = this.targets.computeIfAbsent(invocation.getMethod(), (method) -> target(invocation));
		// No initiator: a role this instance abstains from, skipped like one it follows.
		LeaderInitiator initiator = this.leadership.initiator(target.role());
		LeaderTerm term = (initiator != null) ? initiator.currentTerm() : null;
		LeaderSection section = (term != null) ? term.enter(target.policy()) : null;
		if (section == null) {
			if (logger.isTraceEnabled()) {
				logger.trace("Skipping " + target.method() + ": this instance does not lead '" + target.role() + "'");
			}
			return target.returnsOptional() ? Optional.empty() : null;
		}
		return section.proceed(invocation);
	}

	private static Target target(MethodInvocation invocation) {
		Object bean = invocation.getThis();
		Method method = (bean != null) ? AopUtils.getMostSpecificMethod(invocation.getMethod(), bean.getClass())
				: invocation.getMethod();
		LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
		if (annotation == null) {
			throw new IllegalStateException("No @LeaderOnly on " + describe(method));
		}
		check(method, annotation);
		return new Target(describe(method), annotation.role(), annotation.onLeadershipLost(),
				method.getReturnType() == Optional.class);
	}

	/**
	 * Refuse a declaration that could not be honoured, naming the method.
	 */
	static void check(Method method, LeaderOnly annotation) {
		if (annotation.role().isBlank()) {
			throw new IllegalStateException("@LeaderOnly on " + describe(method) + " names no role");
		}
		Class<?> returnType = method.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class) {
			throw new IllegalStateException(
					"@LeaderOnly(\"" + annotation.role() + "\") on " + describe(method) + " returns " + returnType
							+ ", which a skipped call cannot return; return void, an object or " + "an Optional");
		}
	}

	static String describe(Method method) {
		return method.getDeclaringClass().getSimpleName() + "." + method.getName();
	}

	/**
	 * What an annotated method asks for.
	 */
	private record Target(String method, String role, LeaseLossPolicy policy, boolean returnsOptional) {

	}

}
