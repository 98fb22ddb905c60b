package com.example.reactive;

/**
 * What the payment gateway answers.
 *
 * @param orderId the order paid or refunded
 * @param fencingToken the token the gateway accepted the operation with
 */
record Receipt(String orderId, long fencingToken) {

}
