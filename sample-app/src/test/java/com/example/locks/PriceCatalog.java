package com.example.locks;

import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockMode;

import org.springframework.stereotype.Service;

@Service
class PriceCatalog {

	private final Map<String, BigDecimal> prices = new ConcurrentHashMap<>();

	// Readers share the lock: any number of instances read at once.
	@DistributedLock(scope = "catalog", mode = LockMode.READ)
	public BigDecimal price(String sku) {
		return this.prices.getOrDefault(sku, BigDecimal.ZERO);
	}

	// The writer is alone: it waits for the readers to leave, and new readers wait for
	// it.
	@DistributedLock(scope = "catalog", mode = LockMode.WRITE)
	public void reprice(Map<String, BigDecimal> newPrices) {
		this.prices.putAll(newPrices);
	}

}
