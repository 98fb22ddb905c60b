package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.aop.DistributedLockAspectConfiguration;
import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.observation.LockMetrics;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.listener.Topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistributedLockAutoConfiguration}.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLockAutoConfigurationTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server);
	}

	@Test
	void shouldProvideRedisLockTemplateWithStandardDefaults() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockTemplate.class).hasSingleBean(LockTemplateShutdown.class);
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			assertThat(template.getDefaults()).isEqualTo(LockDefaults.STANDARD);
			assertThat(template.lockKey(LockName.of("a", "b"))).startsWith("lock:");
		});
	}

	@Test
	void shouldUseThePropertiesInTheTemplateWhenTheyAreSet() {
		this.contextRunner
			.withPropertyValues("distributed-lock.key-prefix=app", "distributed-lock.lease=5s",
					"distributed-lock.wait-time=250ms", "distributed-lock.wait-strategy=polling",
					"distributed-lock.reentrant=false", "distributed-lock.progress-aware-timeout=true",
					"distributed-lock.polling.interval=20ms", "distributed-lock.subscription-linger=1s",
					"distributed-lock.keyspace-events.configure=true", "distributed-lock.watchdog.enabled=false",
					"distributed-lock.aspect.order=42", "distributed-lock.actuator.force-release-enabled=true")
			.run((context) -> {
				RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
				assertThat(template.getDefaults()).isEqualTo(new LockDefaults(Duration.ofSeconds(5),
						Duration.ofMillis(250), WaitStrategy.POLLING, false, true, Duration.ofMillis(20)));
				assertThat(template.lockKey(LockName.of("a", "b"))).startsWith("app:");
				DistributedLockProperties properties = context.getBean(DistributedLockProperties.class);
				assertThat(properties.getSubscriptionLinger()).isEqualTo(Duration.ofSeconds(1));
				assertThat(properties.getKeyspaceEvents().isConfigure()).isTrue();
				assertThat(properties.getWatchdog().isEnabled()).isFalse();
				assertThat(properties.getAspect().getOrder()).isEqualTo(42);
				assertThat(properties.getActuator().isForceReleaseEnabled()).isTrue();
			});
	}

	@Test
	void shouldDefaultTheAspectOrderToTheAdvisorsDefault() {
		assertThat(new DistributedLockProperties().getAspect().getOrder())
			.isEqualTo(DistributedLockAspectConfiguration.DEFAULT_ORDER);
	}

	@Test
	void shouldBackOffWhenUserDefinesALockTemplate() {
		this.contextRunner.withUserConfiguration(UserLockTemplateConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(LockTemplate.class).doesNotHaveBean(LockTemplateShutdown.class);
			assertThat(context.getBean(LockTemplate.class)).isSameAs(context.getBean("myLockTemplate"));
			assertThat(context).hasBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME);
		});
	}

	@Test
	void shouldConfigureNothingWhenDisabled() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("distributed-lock.enabled=false", "management.endpoints.web.exposure.include=*")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockTemplate.class)
				.doesNotHaveBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME)
				.doesNotHaveBean(LockMetrics.class)
				.doesNotHaveBean(DistributedLocksEndpoint.class)
				.doesNotHaveBean(DistributedLockProperties.class));
	}

	@Test
	void shouldConfigureNothingWhenSpringDataRedisIsMissing() {
		// The whole package: with one class hidden and both clients present, Boot's own
		// Redis auto-configuration would define two connection factories.
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockTemplate.class));
	}

	@Test
	void shouldConfigureNothingWhenThereIsNoConnectionFactory() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class,
					DistributedLockAspectAutoConfiguration.class, DistributedLockObservationAutoConfiguration.class,
					DistributedLockEndpointAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisConnectionFactory.class)
				.doesNotHaveBean(LockTemplate.class)
				.doesNotHaveBean(DistributedLockAspectConfiguration.ADVISOR_BEAN_NAME));
	}

	@Test
	void shouldSubscribeThroughTheNamedListenerContainerBean() {
		this.contextRunner.withUserConfiguration(ListenerContainerConfiguration.class).run((context) -> {
			CountingContainer container = context.getBean(CountingContainer.class);
			assertThat(container.added).as("the template's keep-alive subscription").hasPositiveValue();
			int before = container.added.get();
			RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
			RedisLockTemplate otherProcess = RedisLockTemplate.builder(context.getBean(RedisConnectionFactory.class))
				.build();
			try (LockHandle held = otherProcess.acquire(LockRequest.of("container", null))) {
				CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> template
					.tryAcquire(LockRequest.builder("container").waitTime(Duration.ofSeconds(10)).build())
					.map((handle) -> {
						handle.close();
						return true;
					})
					.orElse(false), TestThreads.NEW_THREAD);
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(container.added).hasValueGreaterThan(before));
				held.close();
				assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				otherProcess.close();
			}
		});
	}

	@Test
	void shouldNameKeyspaceChannelsWithTheConfiguredDatabase(RedisServer server) {
		this.contextRunner
			.withPropertyValues("spring.data.redis.database=3", "distributed-lock.wait-strategy=keyspace-events",
					"distributed-lock.keyspace-events.configure=true")
			.run((context) -> {
				RedisConnectionFactory connectionFactory = context.getBean(RedisConnectionFactory.class);
				assertThat(RedisDatabase.of(connectionFactory)).isEqualTo(3);
				RedisLockTemplate template = context.getBean(RedisLockTemplate.class);
				RedisLockTemplate otherProcess = RedisLockTemplate.builder(connectionFactory).build();
				LockHandle held = otherProcess
					.acquire(LockRequest.builder("keyspace").lease(Duration.ofSeconds(30)).build());
				try {
					long start = System.nanoTime();
					CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> template
						.tryAcquire(LockRequest.builder("keyspace").waitTime(Duration.ofSeconds(25)).build())
						.map((handle) -> {
							handle.close();
							return true;
						})
						.orElse(false), TestThreads.NEW_THREAD);
					await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
					held.close();
					assertThat(waiter.get(25, TimeUnit.SECONDS)).isTrue();
					assertThat(Duration.ofNanos(System.nanoTime() - start))
						.as("woken by the keyspace event of database 3, well before the 30 s lease ran out")
						.isLessThan(Duration.ofSeconds(15));
				}
				finally {
					otherProcess.close();
				}
			});
	}

	@Test
	void shouldPassTheLockInMemoryUnlessCohortsAreDisabled(RedisServer server) {
		this.contextRunner.withPropertyValues("distributed-lock.cohorts.enabled=false")
			.run((context) -> assertThat(waitersTokens(context.getBean(RedisLockTemplate.class), server))
				.as("cohorts off: every token from Redis, at least its clock in µs")
				.satisfies((tokens) -> assertThat(consecutive(tokens)).isFalse()));
		// On by default; a time limit that a loaded machine cannot miss.
		this.contextRunner
			.withPropertyValues("distributed-lock.cohorts.max-holders=2", "distributed-lock.cohorts.max-time=5s")
			.run((context) -> assertThat(waitersTokens(context.getBean(RedisLockTemplate.class), server))
				.as("a pass: the next token of the block its giver took from Redis")
				.satisfies((tokens) -> assertThat(consecutive(tokens)).isTrue()));
	}

	/**
	 * One caller holds the lock while three more queue behind it. The first of them to
	 * head the line does so alone; the next becomes head with the last behind it and, if
	 * cohorts are on, takes the lock from Redis with a block of tokens, and its release
	 * passes the lock to the last in memory. Return the three waiters' tokens, in order:
	 * a pass shows its giver's plus one, while a token Redis grants is at least its clock
	 * in µs, which moves on by far more between two holds.
	 * <p>
	 * Each release that hands the lock to a head waits until that head filed its request
	 * in Redis, so it reserves the lock for that request and publishes no plain release
	 * message. One heard late, once the next head opened its cohort, would wake the
	 * waiter asleep under it, which then sends its request and takes no pass (cohorting
	 * rule 5).
	 */
	private static List<Long> waitersTokens(RedisLockTemplate template, RedisServer server) throws Exception {
		LockRequest request = LockRequest.builder("cohort").waitTime(Duration.ofSeconds(30)).build();
		String requests = LockKeys.requests(template.lockKey(request.name()));
		ExecutorService threads = Executors.newFixedThreadPool(3);
		AtomicInteger holds = new AtomicInteger();
		try {
			LockHandle first = template.acquire(request);
			List<Future<Long>> waiters = new ArrayList<>();
			for (int queued = 1; queued <= 3; queued++) {
				waiters.add(threads.submit(() -> {
					try (LockHandle held = template.acquire(request)) {
						if (holds.getAndIncrement() == 0) {
							awaitFiledRequest(server, requests);
						}
						return held.fencingToken();
					}
				}));
				int expected = queued;
				await().atMost(Duration.ofSeconds(10)).until(() -> template.waitingThreads() == expected);
				if (queued == 1) {
					// Alone at the head when it attempts: it opens no cohort.
					awaitFiledRequest(server, requests);
				}
			}
			first.close();
			List<Long> tokens = new ArrayList<>();
			for (Future<Long> waiter : waiters) {
				tokens.add(waiter.get(30, TimeUnit.SECONDS));
			}
			tokens.sort(null);
			return tokens;
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static void awaitFiledRequest(RedisServer server, String requests) {
		await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(1).equals(server.command("ZCARD", requests)));
	}

	private static boolean consecutive(List<? extends Long> tokens) {
		for (int i = 1; i < tokens.size(); i++) {
			if (tokens.get(i) == tokens.get(i - 1) + 1) {
				return true;
			}
		}
		return false;
	}

	@Configuration(proxyBeanMethods = false)
	static class UserLockTemplateConfiguration {

		@Bean(destroyMethod = "close")
		RedisLockTemplate myLockTemplate(RedisConnectionFactory connectionFactory) {
			return RedisLockTemplate.builder(connectionFactory).keyPrefix("mine").build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerContainerConfiguration {

		@Bean(DistributedLockAutoConfiguration.LISTENER_CONTAINER_BEAN_NAME)
		CountingContainer distributedLockListenerContainer(RedisConnectionFactory connectionFactory) {
			CountingContainer container = new CountingContainer();
			container.setConnectionFactory(connectionFactory);
			container.setTaskExecutor(Runnable::run);
			return container;
		}

	}

	static class CountingContainer extends RedisMessageListenerContainer {

		final AtomicInteger added = new AtomicInteger();

		@Override
		public void addMessageListener(MessageListener listener, Topic topic) {
			this.added.incrementAndGet();
			super.addMessageListener(listener, topic);
		}

		@Override
		public void addMessageListener(MessageListener listener, Collection<? extends Topic> topics) {
			this.added.incrementAndGet();
			super.addMessageListener(listener, topics);
		}

	}

}
