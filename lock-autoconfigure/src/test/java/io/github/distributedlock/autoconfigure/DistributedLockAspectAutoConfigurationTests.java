package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.aop.DefaultLockTimeoutHandler;
import io.github.distributedlock.aop.DistributedLockAspectConfiguration;
import io.github.distributedlock.aop.LockAnnotationException;
import io.github.distributedlock.aop.LockKeyExpression;
import io.github.distributedlock.aop.LockKeyResolver;
import io.github.distributedlock.aop.LockTimeoutHandler;
import io.github.distributedlock.aop.SpelLockKeyResolver;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributedLockAspectAutoConfiguration}.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLockAspectAutoConfigurationTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server);
	}

	@Test
	void shouldProxyAnnotatedBeansWithoutBootsAopAutoConfiguration() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class).run((context) -> {
			assertThat(context).hasBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME)
				.hasBean("distributedLockValidator")
				.hasSingleBean(SpelLockKeyResolver.class)
				.hasSingleBean(DefaultLockTimeoutHandler.class);
			Service service = context.getBean(Service.class);
			assertThat(AopUtils.isCglibProxy(service)).isTrue();
			assertThat(service.scope("7")).isEqualTo("Service.scope:7");
			assertThat(context.getBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME, Ordered.class).getOrder())
				.isEqualTo(DistributedLockAspectConfiguration.DEFAULT_ORDER);
		});
	}

	@Test
	void shouldUseTheOrderInTheAdvisorWhenItIsSet() {
		this.contextRunner.withPropertyValues("distributed-lock.aspect.order=5")
			.run((context) -> assertThat(
					context.getBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME, Ordered.class).getOrder())
				.isEqualTo(5));
	}

	@Test
	void shouldBackOffWhenUserDefinesKeyResolverAndTimeoutHandler() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class, CustomConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LockKeyResolver.class)
					.hasSingleBean(LockTimeoutHandler.class)
					.doesNotHaveBean(SpelLockKeyResolver.class)
					.doesNotHaveBean(DefaultLockTimeoutHandler.class);
				assertThat(context.getBean(Service.class).scope("7")).isEqualTo("Service.scope:constant");
			});
	}

	@Test
	void shouldFailStartupNamingAnAnnotatedMethodThatIsInvalid() {
		this.contextRunner.withUserConfiguration(InvalidServiceConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockAnnotationException.class)
				.hasMessageContaining("InvalidService.run(String): key '#nme' refers to #nme"));
	}

	@Test
	void shouldNotConfigureTheAspectWhenSpringAopIsMissing() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MethodInterceptor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME));
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		Service service() {
			return new Service();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InvalidServiceConfiguration {

		@Bean
		InvalidService invalidService() {
			return new InvalidService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomConfiguration {

		@Bean
		LockKeyResolver constantKeys() {
			return (expression, method, targetClass) -> (LockKeyExpression) (call) -> "constant";
		}

		@Bean
		LockTimeoutHandler customTimeouts() {
			return (timeout) -> "custom";
		}

	}

	static class Service {

		@DistributedLock(key = "#id")
		public String scope(String id) {
			return LockContext.current().name().toString();
		}

	}

	static class InvalidService {

		@DistributedLock(key = "#nme")
		public void run(String name) {
		}

	}

}
