package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockLostEvent;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes a {@link LockLostEvent} when a hold is found lost, by the watchdog or at
 * release.
 */
final class LockLostEventPublisher implements LockListener {

	private final ApplicationEventPublisher publisher;

	LockLostEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void leaseLost(LockContext context) {
		this.publisher.publishEvent(new LockLostEvent(context));
	}

}
