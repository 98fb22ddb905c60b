package io.github.distributedlock.autoconfigure;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockLostEvent;
import io.github.distributedlock.LockReleaseFailedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes a {@link LockLostEvent} when a hold is found lost, by the watchdog or at
 * release, and a {@link LockReleaseFailedEvent} when a release could not reach Redis.
 * <p>
 * Events are published in order on a thread of their own: the watchdog renews every lease
 * of the template on one thread, so a listener that ran there and took its time would let
 * other leases run out.
 */
final class LockLostEventPublisher implements LockListener, DisposableBean {

	private static final Log logger = LogFactory.getLog(LockLostEventPublisher.class);

	private final ApplicationEventPublisher publisher;

	private final ExecutorService executor = Executors.newSingleThreadExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "distributed-lock-events");
		thread.setDaemon(true);
		return thread;
	});

	LockLostEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void leaseLost(LockContext context) {
		publishLater(new LockLostEvent(context), context, "the loss");
	}

	@Override
	public void releaseFailed(LockContext context, LockAccessException failure) {
		publishLater(new LockReleaseFailedEvent(context, failure), context, "the failed release");
	}

	private void publishLater(ApplicationEvent event, LockContext context, String what) {
		try {
			this.executor.execute(() -> publish(event, context, what));
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Not publishing " + what + " of lock '" + context.name() + "': the context is closing");
		}
	}

	private void publish(ApplicationEvent event, LockContext context, String what) {
		try {
			this.publisher.publishEvent(event);
		}
		catch (RuntimeException ex) {
			logger.warn("A listener failed on " + what + " of lock '" + context.name() + "'", ex);
		}
	}

	@Override
	public void destroy() {
		// Events already queued are still published; a listener still running is not
		// interrupted.
		this.executor.shutdown();
	}

}
