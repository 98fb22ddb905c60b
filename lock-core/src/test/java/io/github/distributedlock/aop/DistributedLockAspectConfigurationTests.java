package io.github.distributedlock.aop;

import java.util.Map;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link DistributedLockAspectConfiguration} in a plain Spring context, without
 * Spring Boot: only a lock template and an auto-proxy creator are given.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLockAspectConfigurationTests {

	private LettuceConnectionFactory connectionFactory;

	private RedisLockTemplate template;

	@BeforeEach
	void start(RedisServer server) {
		this.connectionFactory = TestRedis.connectionFactory(server);
		this.template = RedisLockTemplate.builder(this.connectionFactory).build();
	}

	@AfterEach
	void stop() {
		this.template.close();
		this.connectionFactory.destroy();
	}

	@Test
	void shouldLockAnnotatedBeansWithTheDefaultKeyResolverAndOrder() {
		try (AnnotationConfigApplicationContext context = context(Map.of(), Deployments.class)) {
			Deployments deployments = context.getBean(Deployments.class);
			assertThat(AopUtils.isAopProxy(deployments)).isTrue();
			assertThat(deployments.deploy("42")).isEqualTo(LockName.of("server_access", "42"));
			assertThat(advisorOrder(context)).isEqualTo(DistributedLockAspectConfiguration.DEFAULT_ORDER);
		}
	}

	@Test
	void whenTheOrderPropertyIsSetThenTheAdvisorUsesIt() {
		try (AnnotationConfigApplicationContext context = context(
				Map.of(DistributedLockAspectConfiguration.ORDER_PROPERTY, "5"), Deployments.class)) {
			assertThat(advisorOrder(context)).isEqualTo(5);
		}
	}

	@Test
	void whenAnAnnotatedMethodIsInvalidThenRefreshFailsNamingIt() {
		assertThatExceptionOfType(BeanCreationException.class)
			.isThrownBy(() -> context(Map.of(), InvalidDeployments.class))
			.havingRootCause()
			.isInstanceOf(LockAnnotationException.class)
			.withMessageContaining("InvalidDeployments.deploy(String)");
	}

	private AnnotationConfigApplicationContext context(Map<String, Object> properties, Class<?> service) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", properties));
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(context);
		context.registerBean(LockTemplate.class, () -> this.template);
		context.register(DistributedLockAspectConfiguration.class, service);
		try {
			context.refresh();
		}
		catch (RuntimeException ex) {
			context.close();
			throw ex;
		}
		return context;
	}

	private static int advisorOrder(AnnotationConfigApplicationContext context) {
		return context.getBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME, Ordered.class).getOrder();
	}

	static class Deployments {

		@DistributedLock(scope = "server_access", key = "#id", expire = 10)
		public LockName deploy(String id) {
			return LockContext.current().name();
		}

	}

	static class InvalidDeployments {

		@DistributedLock(scope = "server_access", key = "#nme")
		public void deploy(String name) {
		}

	}

}
