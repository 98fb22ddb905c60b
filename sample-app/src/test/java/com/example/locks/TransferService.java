package com.example.locks;

import java.util.List;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;

import org.springframework.stereotype.Service;

@Service
class TransferService {

	private final LockTemplate locks;

	TransferService(LockTemplate locks) {
		this.locks = locks;
	}

	// Both accounts or neither: two transfers between the same accounts, in opposite
	// directions, cannot deadlock.
	void transfer(String from, String to, long cents) {
		List<LockRequest> accounts = List.of(LockRequest.of("account", from), LockRequest.of("account", to));
		this.locks.executeAll(accounts, (lock) -> {
			// ... move the money
			return null;
		});
	}

	// A key that is a collection locks every element, all or nothing.
	@DistributedLock(scope = "account", key = "#accountIds")
	public void close(List<String> accountIds) {
		// ... close the accounts
	}

}
