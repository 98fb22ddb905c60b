package io.github.distributedlock.aop;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockTimeoutException;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints in {@code META-INF/spring/aot.factories} cover what the library reads by
 * reflection or as a resource, so that it works in a native image.
 */
class RuntimeHintsTests {

	@Test
	void shouldIncludeEveryLuaScript() throws IOException {
		RuntimeHints hints = registeredHints();
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/distributedlock/redis/script/*.lua");
		assertThat(scripts).hasSizeGreaterThanOrEqualTo(17);
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource()
				.forResource("io/github/distributedlock/redis/script/" + script.getFilename())).as(script.getFilename())
				.accepts(hints);
		}
	}

	@Test
	void shouldLetKeyExpressionsReadTheRootObject() {
		RuntimeHints hints = registeredHints();
		for (String getter : List.of("getMethod", "getMethodName", "getArgs", "getTarget", "getTargetClass")) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LockKeyRoot.class, getter)).as(getter)
				.accepts(hints);
		}
	}

	@Test
	void shouldRegisterTheFallbacksOfLockedBeansForInvocation() {
		RuntimeHints hints = processAheadOfTime(Deployments.class);
		assertThat(
				RuntimeHintsPredicates.reflection().onMethodInvocation(method(Deployments.class, "busy", String.class)))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(method(Deployments.class, "busy", String.class, LockTimeoutException.class)))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(ClassLevel.class, "later")))
			.as("a fallback of a class-level annotation")
			.accepts(processAheadOfTime(ClassLevel.class));
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Deployments.class, "deploy"))
			.as("only fallbacks are registered for invocation")
			.rejects(hints);
	}

	@Test
	void shouldContributeNothingForABeanWithoutFallbacks() {
		assertThat(contribution(Plain.class)).isNull();
	}

	private static RuntimeHints registeredHints() {
		RuntimeHints hints = new RuntimeHints();
		AotServices.factories()
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, RuntimeHintsTests.class.getClassLoader()));
		return hints;
	}

	private static RuntimeHints processAheadOfTime(Class<?> beanClass) {
		BeanRegistrationAotContribution contribution = contribution(beanClass);
		assertThat(contribution).as("contribution for " + beanClass.getSimpleName()).isNotNull();
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(RuntimeHintsTests.class)), new InMemoryGeneratedFiles());
		contribution.applyTo(generation, null);
		return generation.getRuntimeHints();
	}

	private static BeanRegistrationAotContribution contribution(Class<?> beanClass) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		RegisteredBean bean = RegisteredBean.of(beanFactory, "bean");
		List<BeanRegistrationAotProcessor> processors = AotServices.factories()
			.load(BeanRegistrationAotProcessor.class)
			.stream()
			.filter(FallbackMethodsAotProcessor.class::isInstance)
			.toList();
		assertThat(processors).as("FallbackMethodsAotProcessor in aot.factories").hasSize(1);
		return processors.get(0).processAheadOfTime(bean);
	}

	private static java.lang.reflect.Method method(Class<?> type, String name, Class<?>... parameters) {
		java.lang.reflect.Method method = ReflectionUtils.findMethod(type, name, parameters);
		assertThat(method).as(name + Arrays.toString(parameters)).isNotNull();
		return method;
	}

	static class Deployments {

		@DistributedLock(scope = "deploy", key = "#id", onTimeout = OnTimeout.FALLBACK, fallback = "busy")
		public String deploy(String id) {
			return id;
		}

		String busy(String id) {
			return "busy";
		}

		private String busy(String id, LockTimeoutException timeout) {
			return "busy";
		}

	}

	@DistributedLock(scope = "jobs", onTimeout = OnTimeout.FALLBACK, fallback = "later")
	static class ClassLevel {

		public void run() {
		}

		@DistributedLock.Exclude
		public void later() {
		}

	}

	static class Plain {

		@DistributedLock(scope = "plain")
		public void work() {
		}

	}

}
