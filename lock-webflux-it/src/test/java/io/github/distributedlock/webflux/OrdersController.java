package io.github.distributedlock.webflux;

import io.github.distributedlock.LockTimeoutException;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /orders/{id}?hold=<ms>} answers the fencing token of the section that
 * processed the order, or 409 when the lock's wait time ran out.
 */
@RestController
class OrdersController {

	private final Orders orders;

	OrdersController(Orders orders) {
		this.orders = orders;
	}

	@GetMapping("/orders/{id}")
	Mono<String> process(@PathVariable String id, @RequestParam long hold) {
		return this.orders.process(id, hold).map(String::valueOf);
	}

	@ExceptionHandler(LockTimeoutException.class)
	ResponseEntity<String> timedOut(LockTimeoutException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT).body(String.valueOf(ex.getMessage()));
	}

}
