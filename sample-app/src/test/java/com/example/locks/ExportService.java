package com.example.locks;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;

import org.springframework.stereotype.Service;

@Service
class ExportService {

	private final LockTemplate locks;

	ExportService(LockTemplate locks) {
		this.locks = locks;
	}

	// At most three exports at once, across every instance.
	@DistributedLock(scope = "exports", permits = 3)
	public void export(String orderId) {
		// ... call the export API
	}

	// The same semaphore through the template: a permit is one hold of "exports".
	String exportWithTheTemplate(String orderId) {
		LockRequest permit = LockRequest.builder("exports").permits(3).build();
		return this.locks.execute(permit, (lock) -> "exported " + orderId);
	}

}
