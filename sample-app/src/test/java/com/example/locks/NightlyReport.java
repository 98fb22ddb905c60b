package com.example.locks;

import java.time.Duration;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
class NightlyReport {

	private final LockTemplate locks;

	NightlyReport(LockTemplate locks) {
		this.locks = locks;
	}

	// Fires at 02:00 on every instance. The first takes the lock and runs; the others
	// find it taken and skip. The lock stays taken for 10 minutes, even if run() ends in
	// a millisecond, so an instance that fires a little late skips too. A minimum hold
	// can't outlast the lease, so the lease is set, and longer.
	@Scheduled(cron = "0 0 2 * * *")
	@DistributedLock(scope = "nightly-report", expireString = "30m", holdAtLeast = "10m")
	public void run() {
		// ... build the report
	}

	// The same with the template: try once, and keep the lock for at least 10 minutes.
	void runWithTheTemplate() {
		LockRequest request = LockRequest.builder("nightly-report")
			.waitTime(Duration.ZERO)
			.lease(Duration.ofMinutes(30))
			.holdAtLeast(Duration.ofMinutes(10))
			.build();
		this.locks.tryAcquire(request).ifPresent((lock) -> {
			try (lock) {
				// ... build the report
			}
		});
	}

}
