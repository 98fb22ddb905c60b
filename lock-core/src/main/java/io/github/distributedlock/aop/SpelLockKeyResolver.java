package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Resolves lock keys with SpEL. Each expression is parsed once; for each call it is
 * evaluated in a {@link MethodBasedEvaluationContext} whose root object is the
 * {@link LockKeyRoot}, whose variables are the arguments (by name, and as {@code #p0} and
 * {@code #a0}) and whose bean resolver is the bean factory.
 * <p>
 * At startup, an expression that refers to a variable the method doesn't have, or to a
 * bean that doesn't exist, is refused: evaluating it could only give {@code null} or
 * fail. Thread-safe.
 */
public final class SpelLockKeyResolver implements LockKeyResolver, BeanFactoryAware {

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private @Nullable BeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public LockKeyExpression prepare(String expression, Method method, Class<?> targetClass) {
		SpelExpression parsed;
		try {
			parsed = this.parser.parseRaw(expression);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException(
					"key '" + expression + "' is not a valid SpEL expression: " + ex.getMessage(), ex);
		}
		List<String> problems = new ArrayList<>();
		checkReferences(parsed.getAST(), method, problems);
		if (!problems.isEmpty()) {
			throw new IllegalArgumentException("key '" + expression + "' " + String.join("; ", problems));
		}
		BeanResolver beanResolver = (this.beanFactory != null) ? new BeanFactoryResolver(this.beanFactory) : null;
		return (call) -> {
			MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(call, call.getMethod(),
					call.getArgs(), this.parameterNames);
			if (beanResolver != null) {
				context.setBeanResolver(beanResolver);
			}
			return parsed.getValue(context);
		};
	}

	private void checkReferences(SpelNode node, Method method, List<String> problems) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!isVariable(name, method)) {
				problems.add("refers to #" + name + ", but " + describeVariables(method));
			}
		}
		else if (node instanceof BeanReference reference && this.beanFactory != null
				&& !this.beanFactory.containsBean(reference.getName())) {
			problems.add("refers to bean '" + reference.getName() + "', but there is no such bean");
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkReferences(node.getChild(i), method, problems);
		}
	}

	private boolean isVariable(String name, Method method) {
		if (name.equals("root") || name.equals("this")) {
			return true;
		}
		int count = method.getParameterCount();
		for (int i = 0; i < count; i++) {
			if (name.equals("p" + i) || name.equals("a" + i)) {
				return true;
			}
		}
		@Nullable String[] names = this.parameterNames.getParameterNames(method);
		if (names != null) {
			for (String parameter : names) {
				if (name.equals(parameter)) {
					return true;
				}
			}
		}
		return false;
	}

	private String describeVariables(Method method) {
		if (method.getParameterCount() == 0) {
			return "the method has no parameters";
		}
		@Nullable String[] names = this.parameterNames.getParameterNames(method);
		if (names == null) {
			return "the parameter names are not known (compile with -parameters, or use #p0, #p1...)";
		}
		return "the parameters are (#" + String.join(", #", names) + ") or #p0..#p" + (names.length - 1);
	}

}
