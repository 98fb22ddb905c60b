package com.example.leader;

import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderOnly;
import io.github.distributedlock.leader.OnRevokedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
class OutboxPublisher {

	private static final Log logger = LogFactory.getLog(OutboxPublisher.class);

	private final Outbox outbox;

	OutboxPublisher(Outbox outbox) {
		this.outbox = outbox;
	}

	// Runs on the leader of "outbox" only; on the other instances the call returns at
	// once. Writes carry the term's fencing token, so that an old leader's are refused.
	@Scheduled(fixedDelay = 1000)
	@LeaderOnly("outbox")
	public void publish() {
		this.outbox.publishPending(LeaderContext.current().fencingToken());
	}

	@EventListener
	void onRevoked(OnRevokedEvent event) {
		logger.info("No longer leading " + event.getRole() + " (" + event.getReason() + ")");
	}

	interface Outbox {

		void publishPending(long fencingToken);

	}

}
