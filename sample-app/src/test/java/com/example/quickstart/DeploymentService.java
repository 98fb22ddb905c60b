package com.example.quickstart;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockContext;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

@Service
class DeploymentService {

	// One deployment per server at a time, across every instance; 10 s lease.
	@DistributedLock(scope = "server_access", key = "#serverId", expire = 10)
	public long deploy(String serverId) {
		long token = LockContext.current().fencingToken();
		// ... deploy, and pass the token to what the deployment writes
		return token;
	}

	// Fires at 02:00 on every instance: one runs the report, the others skip. The lock
	// stays taken 10 minutes (its lease is 30) even if the report is done sooner.
	@Scheduled(cron = "0 0 2 * * *")
	@DistributedLock(scope = "nightly-report", expireString = "30m", holdAtLeast = "10m")
	public void report() {
		// ... at most once a night
	}

	// At most three exports at once, across every instance.
	@DistributedLock(scope = "exports", permits = 3)
	public void export(String orderId) {
		// ... call the rate-limited export API
	}

}
