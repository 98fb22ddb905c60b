package io.github.distributedlock.observation;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import io.github.distributedlock.LockCallback;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockTemplate} that observes each {@link #execute(LockRequest, LockCallback)
 * execute} and {@link #executeAll(List, LockCallback) executeAll}: one
 * {@link LockObservationDocumentation#LOCK} observation spans acquiring the locks and
 * running the work, and is the current observation inside the work. {@code acquire},
 * {@code tryAcquire} and {@code acquireAll} return handles that outlive any scope, so
 * they are passed on unobserved.
 * <p>
 * Thread-safe if the delegate is.
 */
public final class ObservedLockTemplate extends ObservedTemplate<LockTemplate> implements LockTemplate {

	/**
	 * Create an observed template with the default convention.
	 * @param delegate the template that does the locking
	 * @param registry the observation registry
	 */
	public ObservedLockTemplate(LockTemplate delegate, ObservationRegistry registry) {
		this(delegate, registry, null);
	}

	/**
	 * Create an observed template.
	 * @param delegate the template that does the locking
	 * @param registry the observation registry
	 * @param convention a convention that replaces the default, or {@code null}
	 */
	public ObservedLockTemplate(LockTemplate delegate, ObservationRegistry registry,
			@Nullable LockObservationConvention convention) {
		super(delegate, registry, convention);
	}

	/**
	 * Return the template that does the locking.
	 * @return the delegate
	 */
	public LockTemplate getDelegate() {
		return this.delegate;
	}

	@Override
	public <T extends @Nullable Object> T execute(LockRequest request, LockCallback<T> callback) {
		return observe(List.of(request), (observed) -> this.delegate.execute(request, observed), callback);
	}

	@Override
	public <T extends @Nullable Object> T executeAll(List<LockRequest> requests, LockCallback<T> callback) {
		return observe(requests, (observed) -> this.delegate.executeAll(requests, observed), callback);
	}

	private <T extends @Nullable Object> T observe(List<LockRequest> requests, Function<LockCallback<T>, T> execution,
			LockCallback<T> callback) {
		LockObservationContext context = new LockObservationContext(requests);
		Observation observation = observation(context).start();
		try (Observation.Scope scope = observation.openScope()) {
			return execution.apply((lock) -> {
				context.acquired(lock);
				return callback.doInLock(lock);
			});
		}
		catch (Throwable ex) {
			context.failed(ex);
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		return this.delegate.acquire(request);
	}

	@Override
	public Optional<LockHandle> tryAcquire(LockRequest request) {
		return this.delegate.tryAcquire(request);
	}

	@Override
	public LockHandle acquireAll(List<LockRequest> requests) {
		return this.delegate.acquireAll(requests);
	}

	@Override
	public Optional<LockHandle> findHeld(LockName name, String owner) {
		return this.delegate.findHeld(name, owner);
	}

	@Override
	public boolean isLocked(String scope, @Nullable String key) {
		return this.delegate.isLocked(scope, key);
	}

	@Override
	public boolean isHeldByCurrentThread(String scope, @Nullable String key) {
		return this.delegate.isHeldByCurrentThread(scope, key);
	}

}
