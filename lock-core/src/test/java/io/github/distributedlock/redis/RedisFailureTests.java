package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What callers see when Redis is down or stalled: a {@link LockAccessException} naming
 * the lock, within the command timeout, never a hang.
 */
class RedisFailureTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private RedisLockTemplate template;

	@BeforeEach
	void connect() {
		RedisServer server = redis.server();
		this.factory = RedisConnections.standalone(server);
		this.template = RedisLockTemplate.builder(this.factory).build();
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.factory.destroy();
		ManagedRedisServer server = redis.managedServer();
		if (server.isRunning()) {
			server.resume();
		}
		else {
			server.start();
		}
	}

	@Test
	void shouldFailWithinTheCommandTimeoutWhenRedisIsDown() {
		redis.managedServer().stop();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAccessException.class)
			.isThrownBy(() -> this.template.acquire(LockRequest.of("down", "1")))
			.withMessageContaining("down:1")
			.withCauseInstanceOf(org.springframework.dao.DataAccessException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThan(RedisConnections.COMMAND_TIMEOUT.plusMillis(1500));
	}

	@Test
	void shouldFailWithinTheCommandTimeoutWhenRedisStalls() {
		redis.managedServer().pause();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAccessException.class)
			.isThrownBy(() -> this.template.acquire(LockRequest.of("stalled", "1")))
			.withMessageContaining("stalled:1");
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThan(RedisConnections.COMMAND_TIMEOUT.plusMillis(1500));
	}

	@Test
	void shouldFailAReactiveAcquisitionWithinTheCommandTimeoutWhenRedisIsDown() {
		redis.managedServer().stop();
		assertReactiveFailsWithinTheCommandTimeout("down");
	}

	@Test
	void shouldFailAReactiveAcquisitionWithinTheCommandTimeoutWhenRedisStalls() {
		redis.managedServer().pause();
		assertReactiveFailsWithinTheCommandTimeout("stalled");
	}

	/**
	 * Lettuce's factory opens its shared reactive connection on the first ask, and waits
	 * there for the handshake: with Redis stalled before the template's first command,
	 * the subscribing thread (an event loop's, in a WebFlux application) must not wait
	 * with it.
	 */
	@Test
	void shouldNotHoldTheSubscribersThreadWhileTheFirstConnectionWaitsForAStalledRedis() throws Exception {
		redis.managedServer().pause();
		ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate.builder(this.factory).build();
		try {
			CompletableFuture<ReactiveLockHandle> acquired = new CompletableFuture<>();
			long start = System.nanoTime();
			reactive.acquire(LockRequest.of("subscriber", "1"))
				.subscribe(acquired::complete, acquired::completeExceptionally);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the subscribe call")
				.isLessThan(Duration.ofMillis(500));
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> acquired.get(30, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockAccessException.class)
				.withMessageContaining("subscriber:1");
		}
		finally {
			reactive.close();
		}
	}

	/**
	 * A factory stopped under the template refuses the connection at once, on the
	 * subscribing thread: the acquisition fails naming the lock, as with Redis down.
	 */
	@Test
	void shouldFailAReactiveAcquisitionWhoseFactoryStopped() {
		this.factory.stop();
		assertReactiveFailsWithinTheCommandTimeout("stopped");
	}

	/**
	 * A multi-lock first asks whether Redis is a Cluster, which must not wait for a
	 * connection to a stalled Redis on the subscriber's thread either.
	 */
	@Test
	void shouldFailAReactiveMultiLockWithinTheCommandTimeoutWhenRedisStalls() {
		redis.managedServer().pause();
		assertReactiveFailsWithinTheCommandTimeout("stalled-all", (reactive) -> reactive
			.acquireAll(List.of(LockRequest.of("stalled-all", "1"), LockRequest.of("stalled-all", "2"))));
	}

	private void assertReactiveFailsWithinTheCommandTimeout(String name) {
		assertReactiveFailsWithinTheCommandTimeout(name, (reactive) -> reactive.acquire(LockRequest.of(name, "1")));
	}

	private void assertReactiveFailsWithinTheCommandTimeout(String name,
			Function<ReactiveRedisLockTemplate, Mono<ReactiveLockHandle>> acquisition) {
		ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate.builder(this.factory).build();
		try {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> acquisition.apply(reactive).block(Duration.ofSeconds(30)))
				.withMessageContaining(name + ":1");
			assertThat(Duration.ofNanos(System.nanoTime() - start))
				.isLessThan(RedisConnections.COMMAND_TIMEOUT.plusMillis(1500));
		}
		finally {
			reactive.close();
		}
	}

	/**
	 * A template on the application's listener container talks to Redis only when a lock
	 * is taken: its first acquisition opens the factory's shared connection, whose
	 * handshake waits for a stalled Redis up to the connect timeout.
	 */
	@Test
	void shouldFailTheFirstAcquisitionWithinTheCommandTimeoutWhenRedisStalledBeforeIt() {
		LettuceConnectionFactory fresh = RedisConnections.standalone(redis.server());
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(fresh);
		redis.managedServer().pause();
		RedisLockTemplate first = RedisLockTemplate.builder(fresh).listenerContainer(container).build();
		try {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> first.acquire(LockRequest.of("first", "1")))
				.withMessageContaining("first:1");
			assertThat(Duration.ofNanos(System.nanoTime() - start))
				.isLessThan(RedisConnections.COMMAND_TIMEOUT.plusMillis(1500));
		}
		finally {
			first.close();
			fresh.destroy();
		}
	}

	/**
	 * While Redis stays stalled before the shared connection ever opened, each caller's
	 * attempt and each undo sent again until answered wait for a connection: one thread
	 * opens it, whatever the number of callers, so that neither threads nor waits on the
	 * factory's lock pile up (8 callers once grew the template's threads by 3.5 a
	 * second).
	 */
	@Test
	void shouldOpenTheFirstConnectionOnOneThreadWhileRedisStalls() throws Exception {
		LettuceConnectionFactory fresh = RedisConnections.standalone(redis.server());
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(fresh);
		redis.managedServer().pause();
		RedisLockTemplate first = RedisLockTemplate.builder(fresh).listenerContainer(container).build();
		ExecutorService callers = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				String key = Integer.toString(i);
				calls.add(callers.submit(() -> assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> first.acquire(LockRequest.of("pile", key)))));
			}
			for (Future<?> call : calls) {
				call.get(30, TimeUnit.SECONDS);
			}
			Thread.sleep(6_000);
			assertThat(Thread.getAllStackTraces().keySet())
				.filteredOn((thread) -> thread.getName().startsWith("distributed-lock")
						&& (thread.getName().endsWith("-command") || thread.getName().endsWith("-connect")))
				.as("the threads that send before the connection opened")
				.hasSizeLessThanOrEqualTo(1);
		}
		finally {
			callers.shutdownNow();
			first.close();
			fresh.destroy();
		}
	}

	@Test
	void shouldFailAWaiterWhoseRedisDiesWhileItWaits() throws Exception {
		// Held by another process (another template), never released.
		RedisLockTemplate holder = RedisLockTemplate.builder(this.factory).build();
		holder.acquire(LockRequest.builder("dying").key("1").lease(Duration.ofMillis(500)).build());
		Thread killer = new Thread(() -> {
			try {
				Thread.sleep(200);
				redis.managedServer().kill();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		killer.start();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAccessException.class)
			.isThrownBy(() -> this.template
				.acquire(LockRequest.builder("dying").key("1").waitTime(Duration.ofSeconds(20)).build()))
			.withMessageContaining("dying:1");
		// The waiter retries when the 500 ms lease would end, then fails within the
		// timeout.
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThan(RedisConnections.COMMAND_TIMEOUT.plusMillis(2500));
		killer.join();
		holder.close();
	}

	@Test
	void shouldRefuseToWorkAfterClose() {
		this.template.close();
		assertThatExceptionOfType(LockAccessException.class)
			.isThrownBy(() -> this.template.acquire(LockRequest.of("closed", "1")))
			.withMessageContaining("shut down");
	}

}
