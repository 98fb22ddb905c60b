package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * What a Spring MVC and a WebFlux application answer, with
 * {@code distributed-lock.problem-details.enabled=true}, to a request whose
 * {@code @DistributedLock} method finds its lock held by another process, against a real
 * redis-server: a problem detail, and {@code Retry-After} only when the application sets
 * it: the holder's remaining lease is no estimate of when the lock frees.
 */
@ExtendWith(RedisServerExtension.class)
class LockTimeoutProblemTests {

	/** The holder's lease, which the answers must not pass off as a Retry-After. */
	private static final int LEASE_SECONDS = 30;

	private WebApplicationContextRunner servletRunner;

	private ReactiveWebApplicationContextRunner reactiveRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.servletRunner = new WebApplicationContextRunner().withConfiguration(TestRedis.ALL)
			.withConfiguration(
					AutoConfigurations.of(DistributedLockWebAutoConfiguration.class, JacksonAutoConfiguration.class,
							DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withPropertyValues(TestRedis.properties(server))
			.withPropertyValues("distributed-lock.problem-details.enabled=true")
			.withBean(Orders.class)
			.withBean(OrdersController.class);
		this.reactiveRunner = new ReactiveWebApplicationContextRunner().withConfiguration(TestRedis.ALL)
			.withConfiguration(AutoConfigurations.of(DistributedLockReactiveAutoConfiguration.class,
					DistributedLockWebAutoConfiguration.class, JacksonAutoConfiguration.class,
					WebFluxAutoConfiguration.class))
			.withPropertyValues(TestRedis.properties(server))
			.withPropertyValues("distributed-lock.problem-details.enabled=true")
			.withBean(ReactiveOrders.class)
			.withBean(ReactiveOrdersController.class);
	}

	@Test
	void shouldAnswerAServletRequestWhoseLockIsHeldWithAConflictProblemAndTheRetryAfterSet() {
		this.servletRunner.withPropertyValues("distributed-lock.problem-details.retry-after=5s").run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context).build();
			mvc.perform(get("/orders/7")).andExpect(status().isOk()).andExpect(content().string("processed 7"));
			try (HeldByAnotherProcess held = new HeldByAnotherProcess(context, "7")) {
				String retryAfter = mvc.perform(get("/orders/7"))
					.andExpect(status().isConflict())
					.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
					.andExpect(jsonPath("$.status").value(409))
					.andExpect(jsonPath("$.title").value("Conflict"))
					.andExpect(jsonPath("$.instance").value("/orders/7"))
					.andExpect(header().exists(HttpHeaders.RETRY_AFTER))
					.andReturn()
					.getResponse()
					.getHeader(HttpHeaders.RETRY_AFTER);
				assertThat(retryAfter).isEqualTo("5");
			}
		});
	}

	@Test
	void shouldSendNoRetryAfterUnlessOneIsSet() {
		this.servletRunner.run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context).build();
			try (HeldByAnotherProcess held = new HeldByAnotherProcess(context, "10")) {
				mvc.perform(get("/orders/10"))
					.andExpect(status().isConflict())
					.andExpect(header().doesNotExist(HttpHeaders.RETRY_AFTER));
			}
		});
	}

	@Test
	void shouldAnswerWithTheConfiguredStatus() {
		this.servletRunner.withPropertyValues("distributed-lock.problem-details.status=503").run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context).build();
			try (HeldByAnotherProcess held = new HeldByAnotherProcess(context, "8")) {
				mvc.perform(get("/orders/8"))
					.andExpect(status().isServiceUnavailable())
					.andExpect(jsonPath("$.status").value(503))
					.andExpect(header().doesNotExist(HttpHeaders.RETRY_AFTER));
			}
		});
	}

	@Test
	void shouldAnswerAReactiveRequestWhoseLockIsHeldWithAConflictProblemAndTheRetryAfterSet() {
		this.reactiveRunner.withPropertyValues("distributed-lock.problem-details.retry-after=5s").run((context) -> {
			WebTestClient client = WebTestClient.bindToApplicationContext(context).build();
			client.get()
				.uri("/orders/9")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody(String.class)
				.isEqualTo("processed 9");
			try (HeldByAnotherProcess held = new HeldByAnotherProcess(context, "9")) {
				WebTestClient.ResponseSpec response = client.get().uri("/orders/9").exchange();
				response.expectStatus()
					.isEqualTo(409)
					.expectHeader()
					.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
					.expectHeader()
					.valueEquals(HttpHeaders.RETRY_AFTER, "5")
					.expectBody()
					.jsonPath("$.status")
					.isEqualTo(409)
					.jsonPath("$.instance")
					.isEqualTo("/orders/9");
			}
		});
	}

	/**
	 * The lock of an order, held through a template of its own, as another process would.
	 */
	static final class HeldByAnotherProcess implements AutoCloseable {

		private final RedisLockTemplate template;

		private final LockHandle handle;

		HeldByAnotherProcess(ApplicationContext context, String id) {
			this.template = RedisLockTemplate.builder(context.getBean(RedisConnectionFactory.class)).build();
			this.handle = this.template
				.acquire(LockRequest.builder("orders").key(id).lease(Duration.ofSeconds(LEASE_SECONDS)).build());
		}

		@Override
		public void close() {
			try {
				this.handle.close();
			}
			finally {
				this.template.close();
			}
		}

	}

	static class Orders {

		@DistributedLock(scope = "orders", key = "#id", waitTime = 0)
		public String process(String id) {
			return "processed " + id;
		}

	}

	@RestController
	static class OrdersController {

		private final Orders orders;

		OrdersController(Orders orders) {
			this.orders = orders;
		}

		@GetMapping("/orders/{id}")
		String process(@PathVariable String id) {
			return this.orders.process(id);
		}

	}

	static class ReactiveOrders {

		@DistributedLock(scope = "orders", key = "#id", waitTime = 0)
		public Mono<String> process(String id) {
			return Mono.just("processed " + id);
		}

	}

	@RestController
	static class ReactiveOrdersController {

		private final ReactiveOrders orders;

		ReactiveOrdersController(ReactiveOrders orders) {
			this.orders = orders;
		}

		@GetMapping("/orders/{id}")
		Mono<String> process(@PathVariable String id) {
			return this.orders.process(id);
		}

	}

}
