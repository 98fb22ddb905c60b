package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.aop.DefaultLockTimeoutHandler;
import io.github.distributedlock.aop.DistributedLockAspectConfiguration;
import io.github.distributedlock.aop.LockKeyResolver;
import io.github.distributedlock.aop.LockTimeoutHandler;
import io.github.distributedlock.aop.SpelLockKeyResolver;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code @DistributedLock}
 * aspect: it imports {@link DistributedLockAspectConfiguration} (an advisor applied by
 * Spring AOP auto-proxying, like {@code @Transactional}'s, ordered by
 * {@code distributed-lock.aspect.order}, and a validator that checks every annotated
 * method when its bean is created) and defines the SpEL key resolver and the timeout
 * handler, both replaceable.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnClass({ MethodInterceptor.class, DistributedLockAspectConfiguration.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockTemplate.class)
@Import({ DistributedLockAspectConfiguration.class, DistributedLockAspectAutoConfiguration.AutoProxyRegistrar.class })
public final class DistributedLockAspectAutoConfiguration {

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
	 * Makes sure an auto-proxy creator is registered, as
	 * {@code @EnableTransactionManagement} does, even where Boot's AOP auto-configuration
	 * is turned off.
	 */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata,
				BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
