package com.example.locks;

import java.time.Duration;
import java.util.UUID;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;

import org.springframework.stereotype.Service;

@Service
class ImportJobs {

	private final LockTemplate locks;

	ImportJobs(LockTemplate locks) {
		this.locks = locks;
	}

	// Taken on the thread that accepts the job; the owner is a secret stored with the
	// job.
	String start(String fileName) {
		String owner = UUID.randomUUID().toString();
		LockRequest request = LockRequest.builder("import")
			.key(fileName)
			.owner(owner)
			.lease(Duration.ofMinutes(10))
			.build();
		this.locks.acquire(request);
		return owner;
	}

	// Released by whichever thread, or instance, finishes the job and knows its owner.
	void finish(String fileName, String owner) {
		this.locks.findHeld(LockName.of("import", fileName), owner).ifPresent(LockHandle::close);
	}

}
