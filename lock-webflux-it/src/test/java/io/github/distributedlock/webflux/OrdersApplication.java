package io.github.distributedlock.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A WebFlux application on Netty with the distributed-lock auto-configuration, started in
 * child JVMs by {@link WebFluxLockIT}. Prints {@code PORT <port>} once it serves.
 */
@SpringBootApplication
public class OrdersApplication {

	public static void main(String[] args) {
		ConfigurableApplicationContext context = SpringApplication.run(OrdersApplication.class, args);
		System.out.println("PORT " + context.getEnvironment().getRequiredProperty("local.server.port"));
	}

}
