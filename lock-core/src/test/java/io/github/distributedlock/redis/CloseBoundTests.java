package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisServerExtension;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A handle's {@code close()} ends within one command timeout, or at an interrupt, even
 * where nothing else would end it: with Lettuce's own command expiry off, the template
 * closed meanwhile (its timer gone, so nothing failed the release: the close waited until
 * Redis came back, 6.2 s), and a pool that lends no connection (the release waited for
 * one, interrupt or not). Found by an adversarial run against the release sent through
 * the template's port. And an acquisition whose attempt is in flight when its template
 * closes fails then, as one waiting in line does, not at its command timeout.
 */
class CloseBoundTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final List<AutoCloseable> opened = new ArrayList<>();

	@AfterEach
	void closeAll() throws Exception {
		redis.managedServer().resume();
		for (AutoCloseable each : this.opened) {
			each.close();
		}
		redis.server().flushAll();
	}

	@Test
	void aCloseEndsWithinTheCommandTimeoutWhenTheTemplateClosesMeanwhile() throws Exception {
		LettuceClientConfiguration withoutExpiry = LettuceClientConfiguration.builder()
			.commandTimeout(TIMEOUT)
			.clientOptions(ClientOptions.builder()
				.timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
				.build())
			.build();
		RedisLockTemplate template = template(factory(withoutExpiry, true));
		LockHandle held = template.acquire(request("closed").build());
		redis.managedServer().pause();
		long start = System.nanoTime();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(held::close);
		Thread.sleep(200);
		template.close();
		// Ends, failed, before Redis answers again (paused 4 s).
		await().atMost(Duration.ofSeconds(4)).until(closing::isDone);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plusMillis(700));
		assertThat(closing).isCompletedExceptionally();
	}

	@Test
	void anAcquisitionWithItsAttemptInFlightFailsWhenTheTemplateCloses() throws Exception {
		RedisLockTemplate template = template(
				factory(LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build(), true));
		template.acquire(request("warm").build()).close();
		redis.managedServer().pause();
		CompletableFuture<LockHandle> acquiring = CompletableFuture
			.supplyAsync(() -> template.acquire(request("in-flight").waitTime(Duration.ofSeconds(5)).build()));
		assertFailsAtTheClose(acquiring, template);
	}

	@Test
	void aReactiveAcquisitionWithItsAttemptInFlightFailsWhenTheTemplateCloses() throws Exception {
		LettuceConnectionFactory factory = factory(LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build(),
				true);
		ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory).build();
		this.opened.add(template);
		template.acquire(request("warm").build()).flatMap(ReactiveLockHandle::release).block(Duration.ofSeconds(5));
		redis.managedServer().pause();
		CompletableFuture<ReactiveLockHandle> acquiring = template
			.acquire(request("in-flight").waitTime(Duration.ofSeconds(5)).build())
			.toFuture();
		assertFailsAtTheClose(acquiring, template);
	}

	/**
	 * Close the template while the acquisition's attempt is in flight (Redis paused): the
	 * call fails within 600 ms. Before, it failed at its command timeout (1 s), with no
	 * reply.
	 */
	private static void assertFailsAtTheClose(CompletableFuture<?> acquiring, AutoCloseable template) throws Exception {
		Thread.sleep(200);
		long closed = System.nanoTime();
		template.close();
		assertThatThrownBy(() -> acquiring.get(600, TimeUnit.MILLISECONDS))
			.hasCauseInstanceOf(LockAccessException.class)
			.hasMessageContaining("the lock service is shut down");
		assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(Duration.ofMillis(600));
	}

	@Test
	void anInterruptEndsACloseThatWaitsForAPooledConnection() throws Exception {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		pool.setMaxWait(Duration.ofMillis(-1));
		LettuceConnectionFactory factory = factory(
				LettucePoolingClientConfiguration.builder().commandTimeout(TIMEOUT).poolConfig(pool).build(), false);
		RedisLockTemplate template = template(factory);
		LockHandle held = template.acquire(request("pooled").build());
		String key = template.lockKey(held.name());
		RedisConnection taken = factory.getConnection();
		taken.ping();
		CompletableFuture<Throwable> thrown = new CompletableFuture<>();
		Thread closer = new Thread(() -> {
			try {
				held.close();
				thrown.complete(null);
			}
			catch (RuntimeException ex) {
				thrown.complete(ex);
			}
		});
		closer.start();
		Thread.sleep(300);
		closer.interrupt();
		assertThat(thrown.get(2, TimeUnit.SECONDS)).isInstanceOf(LockInterruptedException.class);
		// The release goes on: it runs once the pool lends the connection again.
		taken.close();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Long.valueOf(0).equals(redis.server().command("EXISTS", key)));
	}

	private LettuceConnectionFactory factory(LettuceClientConfiguration client, boolean shared) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()), client);
		factory.setShareNativeConnection(shared);
		factory.afterPropertiesSet();
		factory.start();
		this.opened.add(factory::destroy);
		return factory;
	}

	private RedisLockTemplate template(LettuceConnectionFactory factory) {
		RedisLockTemplate template = RedisLockTemplate.builder(factory).build();
		this.opened.add(template);
		return template;
	}

	private static LockRequest.Builder request(String key) {
		return LockRequest.builder("close-bound").key(key).lease(Duration.ofSeconds(30));
	}

}
