package com.example.reactive;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockContext;
import io.github.distributedlock.ReactiveLockTemplate;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

@Service
class PaymentService {

	private final ReactiveLockTemplate locks;

	private final PaymentGateway gateway;

	PaymentService(ReactiveLockTemplate locks, PaymentGateway gateway) {
		this.locks = locks;
		this.gateway = gateway;
	}

	// The template: the lock is taken on subscription and released when the work ends.
	Mono<Receipt> pay(String orderId) {
		return this.locks.locked(LockRequest.of("payment", orderId),
				ReactiveLockContext.current().flatMap((lock) -> this.gateway.charge(orderId, lock.fencingToken())));
	}

	// The annotation: the same lock, held from subscription until the Mono completes.
	@DistributedLock(scope = "payment", key = "#orderId")
	public Mono<Receipt> refund(String orderId) {
		return ReactiveLockContext.current().flatMap((lock) -> this.gateway.refund(orderId, lock.fencingToken()));
	}

}
