package io.github.distributedlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The sample application: deploys to servers one at a time across every instance, fences
 * configuration writes, computes expensive prices once, and runs a report on one
 * instance.
 */
@SpringBootApplication
@EnableScheduling
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		// Sample only: start a local redis-server when none answers at the configured
		// address.
		application.addListeners(new EmbeddedRedis());
		application.run(args);
	}

}
