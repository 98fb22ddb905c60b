package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.autoconfigure.web.LockTimeoutExceptionHandler;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributedLockWebAutoConfiguration}: when the problem-detail handler
 * is there. What it answers to a real request is in {@link LockTimeoutProblemTests}.
 */
class DistributedLockWebAutoConfigurationTests {

	private static final AutoConfigurations WEB = AutoConfigurations.of(DistributedLockWebAutoConfiguration.class);

	private final WebApplicationContextRunner servletRunner = new WebApplicationContextRunner().withConfiguration(WEB);

	private final ReactiveWebApplicationContextRunner reactiveRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(WEB);

	@Test
	void shouldNotAnswerLockTimeoutsUnlessEnabled() {
		this.servletRunner.run((context) -> assertThat(context).doesNotHaveBean(LockTimeoutExceptionHandler.class));
		this.reactiveRunner.run((context) -> assertThat(context).doesNotHaveBean(LockTimeoutExceptionHandler.class));
	}

	@Test
	void shouldAnswerWithAConflictInAServletApplicationWhenEnabled() {
		this.servletRunner.withPropertyValues("distributed-lock.problem-details.enabled=true")
			.run((context) -> assertThat(status(context.getBean(LockTimeoutExceptionHandler.class)))
				.isEqualTo(HttpStatus.CONFLICT));
	}

	@Test
	void shouldAnswerInAReactiveApplicationWhenEnabled() {
		this.reactiveRunner.withPropertyValues("distributed-lock.problem-details.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(LockTimeoutExceptionHandler.class));
	}

	@Test
	void shouldNotAnswerOutsideAWebApplication() {
		new ApplicationContextRunner().withConfiguration(WEB)
			.withPropertyValues("distributed-lock.problem-details.enabled=true")
			.run((context) -> assertThat(context).doesNotHaveBean(LockTimeoutExceptionHandler.class));
	}

	@Test
	void shouldNotAnswerWithoutSpringWeb() {
		this.servletRunner.withPropertyValues("distributed-lock.problem-details.enabled=true")
			.withClassLoader(new FilteredClassLoader(ProblemDetail.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockTimeoutExceptionHandler.class));
	}

	@Test
	void shouldNotAnswerWhenLocksAreDisabled() {
		this.servletRunner
			.withPropertyValues("distributed-lock.problem-details.enabled=true", "distributed-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockTimeoutExceptionHandler.class));
	}

	@Test
	void shouldBackOffFromTheApplicationsHandler() {
		this.servletRunner.withPropertyValues("distributed-lock.problem-details.enabled=true")
			.withBean("myHandler", LockTimeoutExceptionHandler.class,
					() -> new LockTimeoutExceptionHandler(HttpStatus.LOCKED))
			.run((context) -> {
				assertThat(context).hasSingleBean(LockTimeoutExceptionHandler.class).hasBean("myHandler");
				assertThat(status(context.getBean(LockTimeoutExceptionHandler.class))).isEqualTo(HttpStatus.LOCKED);
			});
	}

	@Test
	void shouldAnswerWithTheConfiguredStatus() {
		this.reactiveRunner
			.withPropertyValues("distributed-lock.problem-details.enabled=true",
					"distributed-lock.problem-details.status=503")
			.run((context) -> assertThat(status(context.getBean(LockTimeoutExceptionHandler.class)))
				.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE));
	}

	@Test
	void shouldFailStartupOnAStatusThatIsNoError() {
		this.servletRunner
			.withPropertyValues("distributed-lock.problem-details.enabled=true",
					"distributed-lock.problem-details.status=200")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockPropertyException.class)
				.hasMessageContaining("distributed-lock.problem-details.status")
				.hasMessageContaining("4xx or 5xx"));
	}

	private static Object status(LockTimeoutExceptionHandler handler) {
		ResponseEntity<ProblemDetail> response = handler
			.handleLockTimeoutException(new LockTimeoutException(LockName.of("s", "k"), Duration.ZERO, null));
		return response.getStatusCode();
	}

}
