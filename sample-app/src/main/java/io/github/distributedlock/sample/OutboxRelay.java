package io.github.distributedlock.sample;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderOnly;
import io.github.distributedlock.leader.OnGrantedEvent;
import io.github.distributedlock.leader.OnRevokedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A leader-only job: every instance's scheduler calls it twice a second, and only the
 * leader of the {@code outbox-relay} role (under {@code distributed-lock.leader.roles})
 * runs it; the others return at once. When the leader stops or dies, another instance
 * takes the role over and runs it from then on.
 */
@Component
public class OutboxRelay {

	static final String ROLE = "outbox-relay";

	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	private final AtomicInteger runs = new AtomicInteger();

	private final SampleProperties properties;

	OutboxRelay(SampleProperties properties) {
		this.properties = properties;
	}

	@Scheduled(fixedDelay = 500)
	@LeaderOnly(ROLE)
	public void relay() {
		int run = this.runs.incrementAndGet();
		// Twice a second: at DEBUG, so that the log of a running sample stays readable
		// (demo.sh turns it on to see which instance runs the relay). Taking and losing
		// the role is logged at INFO below.
		logger.debug("Relay run " + run + " on " + this.properties.instance() + " with token "
				+ LeaderContext.current().fencingToken() + " at " + System.currentTimeMillis());
	}

	@EventListener
	void onGranted(OnGrantedEvent event) {
		logger.info("Leading " + event.getRole() + " on " + this.properties.instance() + " with token "
				+ event.getFencingToken());
	}

	@EventListener
	void onRevoked(OnRevokedEvent event) {
		logger.info("No longer leading " + event.getRole() + " on " + this.properties.instance() + " ("
				+ event.getReason() + ")");
	}

	int runs() {
		return this.runs.get();
	}

}
