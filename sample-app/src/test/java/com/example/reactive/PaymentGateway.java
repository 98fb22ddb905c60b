package com.example.reactive;

import reactor.core.publisher.Mono;

/**
 * A reactive client of the fenced resource: it refuses an operation whose fencing token
 * is lower than one it has accepted for the order.
 */
interface PaymentGateway {

	Mono<Receipt> charge(String orderId, long fencingToken);

	Mono<Receipt> refund(String orderId, long fencingToken);

}
