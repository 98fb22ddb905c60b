package com.example.coroutines

import io.github.distributedlock.DistributedLock
import io.github.distributedlock.ReactiveLockContext
import kotlinx.coroutines.reactor.awaitSingle
import org.springframework.stereotype.Service

@Service
open class PaymentService(private val gateway: PaymentGateway) {

	// Held until pay returns; cancelling the coroutine releases the lock.
	@DistributedLock(scope = "payment", key = "#orderId")
	open suspend fun pay(orderId: String): Receipt? {
		val lock = ReactiveLockContext.current().awaitSingle()
		return gateway.charge(orderId, lock.fencingToken())
	}

}
