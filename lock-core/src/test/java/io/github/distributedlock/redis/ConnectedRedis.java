package io.github.distributedlock.redis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.distributedlock.test.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A connection to a test's dedicated Redis, emptied before each test, and threads for the
 * test's waiters. Registered after the class's {@link RedisServerExtension}:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static RedisServerExtension redis = RedisServerExtension.dedicated();
 *
 * &#64;RegisterExtension
 * final ConnectedRedis connected = new ConnectedRedis(redis);
 * </pre>
 */
final class ConnectedRedis implements BeforeEachCallback, AfterEachCallback {

	private final RedisServerExtension redis;

	private @Nullable LettuceConnectionFactory connectionFactory;

	private @Nullable ExecutorService executor;

	ConnectedRedis(RedisServerExtension redis) {
		this.redis = redis;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.redis.server().command("FLUSHALL");
		this.connectionFactory = RedisConnections.standalone(this.redis.server());
		this.executor = Executors.newCachedThreadPool();
	}

	@Override
	public void afterEach(ExtensionContext context) {
		if (this.executor != null) {
			this.executor.shutdownNow();
		}
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
	}

	LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			throw new IllegalStateException("Not connected: used outside a test");
		}
		return this.connectionFactory;
	}

	ExecutorService executor() {
		if (this.executor == null) {
			throw new IllegalStateException("No threads: used outside a test");
		}
		return this.executor;
	}

}
