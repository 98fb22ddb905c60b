package com.example.template;

import java.time.Duration;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;

import org.springframework.stereotype.Service;

@Service
class ConfigWriter {

	private final LockTemplate locks;

	private final ConfigStore store;

	ConfigWriter(LockTemplate locks, ConfigStore store) {
		this.locks = locks;
		this.store = store;
	}

	void write(String key, String value) {
		LockRequest request = LockRequest.builder("config").key(key).lease(Duration.ofSeconds(5)).build();
		this.locks.executeWithoutResult(request, (lock) -> this.store.write(key, value, lock.fencingToken()));
	}

}
