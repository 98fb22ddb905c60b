package io.github.distributedlock.autoconfigure.web;

import java.time.Duration;

import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a {@link LockTimeoutException} that a Spring MVC or WebFlux handler lets out
 * (typically from a {@code @DistributedLock} method it calls) with an RFC 9457 problem
 * detail, and a {@code Retry-After} header when the application sets one.
 * <p>
 * The status is 409 (Conflict) by default rather than 503 (Service Unavailable). A lock
 * is taken on one resource (its scope and key) by another caller working on it: the
 * request conflicts with that resource's current state, while the service is up and
 * answers other requests. A 5xx would count against the service's error rate and
 * availability, and gateways and load balancers that see one take the instance for
 * failing (they retry elsewhere or eject it), though every instance shares the lock and
 * would answer the same. Applications whose clients back off only on 503 can choose it,
 * or any other 4xx or 5xx status.
 * <p>
 * {@code Retry-After} is sent only when the application sets how long its clients should
 * wait, in whole seconds, rounded up and at least 1. The holder's remaining lease is no
 * estimate of when the lock frees: a lease the watchdog renews says nothing about when
 * the work ends, and a holder may release long before its lease runs out.
 * <p>
 * The detail names neither the lock's scope nor its key, which may carry request data.
 * Ordered at 0, like Spring Boot's own problem-details handler, so that it comes before
 * an application's catch-all advice of the default order; an {@code @ExceptionHandler} in
 * the controller itself still comes first. Thread-safe.
 */
@ControllerAdvice
public class LockTimeoutExceptionHandler implements Ordered {

	private final HttpStatusCode status;

	private final @Nullable Long retryAfterSeconds;

	/**
	 * Create a handler that sends no {@code Retry-After}.
	 * @param status the status of the answer, a 4xx or 5xx
	 * @throws IllegalArgumentException if the status is not a 4xx or 5xx
	 */
	public LockTimeoutExceptionHandler(HttpStatusCode status) {
		this(status, null);
	}

	/**
	 * Create a handler.
	 * @param status the status of the answer, a 4xx or 5xx
	 * @param retryAfter what {@code Retry-After} tells clients to wait, or {@code null}
	 * for no header
	 * @throws IllegalArgumentException if the status is not a 4xx or 5xx, or the wait is
	 * negative
	 */
	public LockTimeoutExceptionHandler(HttpStatusCode status, @Nullable Duration retryAfter) {
		if (!status.isError()) {
			throw new IllegalArgumentException("The status of a lock timeout must be a 4xx or 5xx, not " + status);
		}
		if (retryAfter != null && retryAfter.isNegative()) {
			throw new IllegalArgumentException("Retry-After must not be negative, but was " + retryAfter);
		}
		this.status = status;
		this.retryAfterSeconds = retryAfterSeconds(retryAfter);
	}

	/**
	 * Create a handler answering 409 (Conflict).
	 */
	public LockTimeoutExceptionHandler() {
		this(HttpStatus.CONFLICT);
	}

	/**
	 * Answer a lock timeout.
	 * @param ex the timeout
	 * @return the problem detail, with the {@code Retry-After} header when set
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleLockTimeoutException(LockTimeoutException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(this.status,
				"A lock this request needs is held by another caller; try again later.");
		ResponseEntity.BodyBuilder response = ResponseEntity.status(this.status);
		if (this.retryAfterSeconds != null) {
			response.header(HttpHeaders.RETRY_AFTER, this.retryAfterSeconds.toString());
		}
		return response.body(problem);
	}

	/**
	 * Return the whole seconds, rounded up; at least 1 so that clients never retry at
	 * once in a loop.
	 */
	static @Nullable Long retryAfterSeconds(@Nullable Duration retryAfter) {
		if (retryAfter == null) {
			return null;
		}
		long seconds = retryAfter.toSeconds() + ((retryAfter.toNanosPart() > 0) ? 1 : 0);
		return Math.max(1, seconds);
	}

	@Override
	public int getOrder() {
		return 0;
	}

}
