package com.example.locks;

import java.time.Duration;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;

import org.springframework.stereotype.Service;

@Service
class TicketCounter {

	private final LockTemplate locks;

	TicketCounter(LockTemplate locks) {
		this.locks = locks;
	}

	// Waiters get the lock in the order they asked, across every instance.
	@DistributedLock(scope = "tickets", key = "#eventId", fair = true, waitTime = 30)
	public void sell(String eventId, int seats) {
		// ... sell the seats
	}

	void sellWithTheTemplate(String eventId, int seats) {
		LockRequest request = LockRequest.builder("tickets")
			.key(eventId)
			.fair(true)
			.waitTime(Duration.ofSeconds(30))
			.build();
		this.locks.executeWithoutResult(request, (lock) -> {
			// ... sell the seats
		});
	}

}
