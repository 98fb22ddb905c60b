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
 * detail, and a {@code Retry-After} header when the holder's remaining lease is known.
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
 * {@code Retry-After} is the holder's remaining lease in whole seconds, rounded up and at
 * least 1, as the timed-out acquisition last saw it. It is a hint: the holder may release
 * sooner, and a lease its watchdog renews lasts longer. Without a known lease there is no
 * header.
 * <p>
 * The detail names neither the lock's scope nor its key, which may carry request data.
 * Ordered at 0, like Spring Boot's own problem-details handler, so that it comes before
 * an application's catch-all advice of the default order; an {@code @ExceptionHandler} in
 * the controller itself still comes first. Thread-safe.
 */
@ControllerAdvice
public class LockTimeoutExceptionHandler implements Ordered {

	private final HttpStatusCode status;

	/**
	 * Create a handler.
	 * @param status the status of the answer, a 4xx or 5xx
	 * @throws IllegalArgumentException if the status is not a 4xx or 5xx
	 */
	public LockTimeoutExceptionHandler(HttpStatusCode status) {
		if (!status.isError()) {
			throw new IllegalArgumentException("The status of a lock timeout must be a 4xx or 5xx, not " + status);
		}
		this.status = status;
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
	 * @return the problem detail, with the {@code Retry-After} header when known
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleLockTimeoutException(LockTimeoutException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(this.status,
				"A lock this request needs is held by another caller; try again later.");
		ResponseEntity.BodyBuilder response = ResponseEntity.status(this.status);
		Long retryAfter = retryAfterSeconds(ex.getHolderRemainingLease());
		if (retryAfter != null) {
			response.header(HttpHeaders.RETRY_AFTER, retryAfter.toString());
		}
		return response.body(problem);
	}

	/**
	 * Return the whole seconds, rounded up, to wait for a lease to end; at least 1 so
	 * that clients never retry at once in a loop.
	 */
	static @Nullable Long retryAfterSeconds(@Nullable Duration remainingLease) {
		if (remainingLease == null) {
			return null;
		}
		long seconds = remainingLease.toSeconds() + ((remainingLease.toNanosPart() > 0) ? 1 : 0);
		return Math.max(1, seconds);
	}

	@Override
	public int getOrder() {
		return 0;
	}

}
