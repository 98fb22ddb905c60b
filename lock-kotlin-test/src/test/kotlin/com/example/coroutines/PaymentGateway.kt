package com.example.coroutines

/**
 * The fenced resource of the docs' Kotlin example (docs/reactive.md): it refuses a charge
 * whose fencing token is lower than one it has accepted for the order.
 */
interface PaymentGateway {

	suspend fun charge(orderId: String, fencingToken: Long): Receipt

}

data class Receipt(val orderId: String, val fencingToken: Long)
