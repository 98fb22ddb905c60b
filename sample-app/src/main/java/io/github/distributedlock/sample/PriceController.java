package io.github.distributedlock.sample;

import io.github.distributedlock.sample.PriceService.Quote;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Price endpoint, backed by the stampede-safe cache.
 */
@RestController
class PriceController {

	private final PriceService prices;

	PriceController(PriceService prices) {
		this.prices = prices;
	}

	@GetMapping("/prices/{symbol}")
	Quote quote(@PathVariable String symbol) {
		return this.prices.quote(symbol);
	}

}
