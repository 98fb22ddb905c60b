package io.github.distributedlock.aop;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.ReactiveLockTemplate;

import org.springframework.aop.Advisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * {@link Configuration @Configuration} of the {@link DistributedLock @DistributedLock}
 * aspect, the counterpart of Spring's {@code ProxyTransactionManagementConfiguration}: an
 * {@link Advisor} named {@value #ADVISOR_BEAN_NAME} that Spring AOP auto-proxying applies
 * to annotated methods, and a bean post-processor that checks every annotated method when
 * its bean is created, so that a broken declaration fails the startup.
 * <p>
 * The context must hold a {@link LockTemplate} and an auto-proxy creator. A
 * {@link LockKeyResolver} and a {@link LockTimeoutHandler} bean are used when there is
 * one, and {@link SpelLockKeyResolver} and {@link DefaultLockTimeoutHandler} otherwise;
 * {@link LockTimeoutListener} beans are told of the scope of every annotated method once
 * the singletons are created, and of every timeout. Methods returning {@code Mono},
 * {@code Flux}, {@code CompletionStage} or {@code CompletableFuture}, and Kotlin suspend
 * functions, need a {@link io.github.distributedlock.ReactiveLockTemplate} bean as well:
 * without one, they fail the startup. The advisor's order is the {@value #ORDER_PROPERTY}
 * property, {@link #DEFAULT_ORDER} by default. Spring Boot's auto-configuration imports
 * this class.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public class DistributedLockAspectConfiguration {

	/**
	 * The name of the advisor bean.
	 */
	public static final String ADVISOR_BEAN_NAME = "distributedLockAdvisor";

	/**
	 * The property that orders the advisor among the other advisors.
	 */
	public static final String ORDER_PROPERTY = "distributed-lock.aspect.order";

	/**
	 * The default order of the advisor: just before {@code Ordered.LOWEST_PRECEDENCE},
	 * the default of the transaction and cache advisors, so that transactions and caching
	 * run inside the lock. To release the lock only after a transaction commits, the lock
	 * must come first, as it does by default.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockedMethods distributedLockMethods(ObjectProvider<LockKeyResolver> keyResolver,
			ConfigurableBeanFactory beanFactory) {
		return new LockedMethods(() -> keyResolver.getIfAvailable(() -> defaultKeyResolver(beanFactory)),
				new EmbeddedValueResolver(beanFactory), () -> hasReactiveLockTemplate(beanFactory));
	}

	private static boolean hasReactiveLockTemplate(ConfigurableBeanFactory beanFactory) {
		// Only with Reactor, which the template's type needs. Asked of the bean
		// definitions, without creating any bean.
		return ReactiveLocking.REACTOR_PRESENT && beanFactory instanceof ListableBeanFactory listable
				&& listable.getBeanNamesForType(ReactiveLockTemplate.class, true, false).length > 0;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockAnnotationValidator distributedLockValidator(ObjectProvider<LockedMethods> methods,
			ObjectProvider<LockTimeoutListener> timeoutListeners) {
		return new LockAnnotationValidator(methods.getObject(), () -> timeoutListeners.orderedStream().toList());
	}

	@Bean(ADVISOR_BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockAdvisor distributedLockAdvisor(ObjectProvider<LockedMethods> methods,
			ObjectProvider<LockTemplate> lockTemplate, ObjectProvider<LockTimeoutHandler> timeoutHandler,
			ObjectProvider<LockTimeoutListener> timeoutListeners, Environment environment, BeanFactory beanFactory) {
		LockedMethods lockedMethods = methods.getObject();
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(lockedMethods, lockTemplate::getObject,
				() -> timeoutHandler.getIfAvailable(DefaultLockTimeoutHandler::new),
				() -> timeoutListeners.orderedStream().toList(), ReactiveLocking.of(beanFactory));
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(lockedMethods, interceptor);
		// Read here rather than injected: auto-proxying creates advisors early, before a
		// properties bean could be fully post-processed.
		advisor.setOrder(environment.getProperty(ORDER_PROPERTY, Integer.class, DEFAULT_ORDER));
		return advisor;
	}

	private static LockKeyResolver defaultKeyResolver(ConfigurableBeanFactory beanFactory) {
		SpelLockKeyResolver resolver = new SpelLockKeyResolver();
		resolver.setBeanFactory(beanFactory);
		return resolver;
	}

}
