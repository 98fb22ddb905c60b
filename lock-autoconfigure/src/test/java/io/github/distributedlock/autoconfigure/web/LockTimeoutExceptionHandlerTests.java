package io.github.distributedlock.autoconfigure.web;

import java.time.Duration;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockTimeoutExceptionHandler}, without a web stack.
 */
class LockTimeoutExceptionHandlerTests {

	private final LockTimeoutExceptionHandler handler = new LockTimeoutExceptionHandler();

	@Test
	void shouldAnswerAConflictProblemThatNamesNoLock() {
		ResponseEntity<ProblemDetail> response = this.handler.handleLockTimeoutException(
				new LockTimeoutException(LockName.of("orders", "customer-7"), Duration.ofSeconds(2), null));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
		ProblemDetail problem = response.getBody();
		assertThat(problem).isNotNull();
		assertThat(problem.getStatus()).isEqualTo(409);
		assertThat(problem.getDetail()).isNotBlank().doesNotContain("orders").doesNotContain("customer-7");
		assertThat(response.getHeaders().containsHeader(HttpHeaders.RETRY_AFTER)).as("lease unknown").isFalse();
	}

	@Test
	void shouldSendNoRetryAfterForAHoldersKnownLeaseUnlessOneIsSet() {
		assertThat(retryAfter(new LockTimeoutExceptionHandler(), Duration.ofSeconds(29)))
			.as("a lease the watchdog renews is no estimate")
			.isNull();
		assertThat(retryAfter(new LockTimeoutExceptionHandler(HttpStatus.CONFLICT, Duration.ofSeconds(5)),
				Duration.ofSeconds(29)))
			.isEqualTo("5");
	}

	@Test
	void shouldRoundTheRetryAfterSetUpToWholeSecondsOfAtLeastOne() {
		assertThat(retryAfter(Duration.ofMillis(12_001))).isEqualTo("13");
		assertThat(retryAfter(Duration.ofSeconds(12))).isEqualTo("12");
		assertThat(retryAfter(Duration.ofNanos(1))).isEqualTo("1");
		assertThat(retryAfter(Duration.ZERO)).as("never retry at once").isEqualTo("1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new LockTimeoutExceptionHandler(HttpStatus.CONFLICT, Duration.ofSeconds(-1)))
			.withMessageContaining("negative");
	}

	@Test
	void shouldAnswerTheStatusItWasGiven() {
		ResponseEntity<ProblemDetail> response = new LockTimeoutExceptionHandler(HttpStatus.SERVICE_UNAVAILABLE)
			.handleLockTimeoutException(new LockTimeoutException(LockName.of("orders", "1"), Duration.ZERO, null));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(response.getBody()).extracting(ProblemDetail::getStatus).isEqualTo(503);
	}

	@Test
	void shouldRefuseAStatusThatIsNoError() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LockTimeoutExceptionHandler(HttpStatus.OK))
			.withMessageContaining("4xx or 5xx");
	}

	private String retryAfter(Duration set) {
		return retryAfter(new LockTimeoutExceptionHandler(HttpStatus.CONFLICT, set), null);
	}

	private static @Nullable String retryAfter(LockTimeoutExceptionHandler handler,
			@Nullable Duration holderRemainingLease) {
		return handler
			.handleLockTimeoutException(
					new LockTimeoutException(LockName.of("orders", "1"), Duration.ofSeconds(1), holderRemainingLease))
			.getHeaders()
			.getFirst(HttpHeaders.RETRY_AFTER);
	}

}
