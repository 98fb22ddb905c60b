package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.aop.DefaultLockTimeoutHandler;
import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.aop.DistributedLockInterceptor;
import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.aop.LockKeyResolver;
import io.github.distributedlock.aop.LockTimeoutHandler;
import io.github.distributedlock.aop.LockTimeoutListener;
import io.github.distributedlock.aop.LockedMethods;
import io.github.distributedlock.aop.SpelLockKeyResolver;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code @DistributedLock}
 * aspect: an advisor applied by Spring AOP auto-proxying, like {@code @Transactional}'s,
 * ordered by {@code distributed-lock.aspect.order}; a validator that checks every
 * annotated method when its bean is created; the SpEL key resolver and the timeout
 * handler, both replaceable.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnClass({ MethodInterceptor.class, LockedMethods.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockTemplate.class)
@Import(DistributedLockAspectAutoConfiguration.AutoProxyRegistrar.class)
public final class DistributedLockAspectAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockedMethods distributedLockMethods(ObjectProvider<LockKeyResolver> keyResolver,
			ConfigurableBeanFactory beanFactory) {
		return new LockedMethods(keyResolver::getObject, new EmbeddedValueResolver(beanFactory));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockAnnotationValidator distributedLockValidator(ObjectProvider<LockedMethods> methods) {
		return new LockAnnotationValidator(methods.getObject());
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockAdvisor distributedLockAdvisor(ObjectProvider<LockedMethods> methods,
			ObjectProvider<LockTemplate> lockTemplate, ObjectProvider<LockTimeoutHandler> timeoutHandler,
			ObjectProvider<LockTimeoutListener> timeoutListeners, Environment environment) {
		LockedMethods lockedMethods = methods.getObject();
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(lockedMethods,
				lockTemplate::getObject, timeoutHandler::getObject, () -> timeoutListeners.orderedStream().toList());
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(lockedMethods, interceptor);
		// Bound here rather than injected: auto-proxying creates advisors early, before the
		// properties bean could be fully post-processed.
		advisor.setOrder(Binder.get(environment)
			.bind("distributed-lock.aspect.order", Integer.class)
			.orElse(DistributedLockAdvisor.DEFAULT_ORDER));
		return advisor;
	}

	@Bean
	@ConditionalOnMissingBean(LockKeyResolver.class)
	SpelLockKeyResolver lockKeyResolver() {
		return new SpelLockKeyResolver();
	}

	@Bean
	@ConditionalOnMissingBean(LockTimeoutHandler.class)
	DefaultLockTimeoutHandler lockTimeoutHandler() {
		return new DefaultLockTimeoutHandler();
	}

	/**
	 * Makes sure an auto-proxy creator is registered, as {@code @EnableTransactionManagement}
	 * does, even where Boot's AOP auto-configuration is turned off.
	 */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata,
				BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
