package io.github.distributedlock.autoconfigure;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockLostEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes a {@link LockLostEvent} when a hold is found lost, by the watchdog or at
 * release.
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
		LockLostEvent event = new LockLostEvent(context);
		try {
			this.executor.execute(() -> publish(event));
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Not publishing the loss of lock '" + context.name() + "': the context is closing");
		}
	}

	private void publish(LockLostEvent event) {
		try {
			this.publisher.publishEvent(event);
		}
		catch (RuntimeException ex) {
			logger.warn("A listener failed on the loss of lock '" + event.getLockName() + "'", ex);
		}
	}

	@Override
	public void destroy() {
		// Events already queued are still published; a listener still running is not
		// interrupted.
		this.executor.shutdown();
	}

}
