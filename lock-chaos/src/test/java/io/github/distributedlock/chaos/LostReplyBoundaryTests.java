package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServerExtension;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The command timeout is the one timing constant between an attempt and its reply: an
 * attempt whose reply does not come within it fails the call, and the driver undoes what
 * the attempt took, by its hold id, once Redis answers. Here Redis stalls ({@code DEBUG
 * SLEEP}) so that an attempt's reply comes just before, at and just after a 500 ms
 * command timeout, on the blocking and the reactive template. Whichever way the call
 * ends, no hold is left behind: either the caller holds the lock, or the lock is free
 * soon after Redis answers, long before the attempt's 10 s lease.
 */
class LostReplyBoundaryTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	private static final Duration LEASE = Duration.ofSeconds(10);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated("--enable-debug-command", "yes");

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@AfterEach
	void disconnect() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
		redis.server().flushAll();
	}

	@ParameterizedTest(name = "reply after about {0} ms")
	@ValueSource(ints = { 400, 500, 600 })
	void aBlockingCallLeavesNoHoldBehindAStallAroundTheCommandTimeout(int stallMillis) throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory()).build()) {
			LockRequest request = LockRequest.builder("boundary").key("blocking-" + stallMillis).lease(LEASE).build();
			template.acquire(request).close();
			RespConnection stall = stallAfterASend(stallMillis);
			LockHandle held = null;
			try {
				held = template.acquire(request);
			}
			catch (LockAccessException ex) {
				// The reply came too late: what the attempt took must not stay.
			}
			checkNoHoldLeftBehind(template.lockKey(request.name()), held != null);
			// Released once Redis answers again: the release is not what is tried here.
			awaitEnd(stall);
			if (held != null) {
				held.close();
			}
		}
	}

	@ParameterizedTest(name = "reply after about {0} ms")
	@ValueSource(ints = { 400, 500, 600 })
	void aReactiveCallLeavesNoHoldBehindAStallAroundTheCommandTimeout(int stallMillis) throws Exception {
		ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory()).build();
		try {
			LockRequest request = LockRequest.builder("boundary").key("reactive-" + stallMillis).lease(LEASE).build();
			template.acquire(request).flatMap(ReactiveLockHandle::release).block();
			RespConnection stall = stallAfterASend(stallMillis);
			ReactiveLockHandle held = null;
			try {
				held = template.acquire(request).block(Duration.ofSeconds(10));
			}
			catch (LockAccessException ex) {
				// The reply came too late: what the attempt took must not stay.
			}
			checkNoHoldLeftBehind(template.lockKey(request), held != null);
			// Released once Redis answers again: the release is not what is tried here.
			awaitEnd(stall);
			if (held != null) {
				held.release().block();
			}
		}
		finally {
			template.close();
		}
	}

	/**
	 * Stall Redis from another connection, opened first so that the stall starts at once,
	 * and return 10 ms into the stall: the attempt sent next waits the rest of it, about
	 * the given time, for its reply.
	 * @return the connection the stall was sent on, whose reply ends it
	 */
	private static RespConnection stallAfterASend(int waitMillis) throws InterruptedException {
		double stall = (waitMillis + 10) / 1000.0;
		RespConnection connection = redis.server().connect();
		connection.send("DEBUG", "SLEEP", Double.toString(stall));
		TimeUnit.MILLISECONDS.sleep(10);
		return connection;
	}

	/**
	 * Wait until the stall ended: Redis answers again.
	 */
	private static void awaitEnd(RespConnection stall) throws IOException {
		try {
			stall.awaitNext();
		}
		finally {
			stall.close();
		}
	}

	/**
	 * A caller that holds the lock finds it in Redis; one whose call failed finds it gone
	 * within a second of Redis answering, not after the lease.
	 */
	private static void checkNoHoldLeftBehind(String key, boolean held) {
		if (held) {
			assertThat(redis.server().command("EXISTS", key)).as("the lock its caller holds").isEqualTo(1L);
			return;
		}
		await().atMost(Duration.ofSeconds(2))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(redis.server().command("EXISTS", key))
				.as("the lock an attempt without a reply took, %s ms of its lease left",
						redis.server().command("PTTL", key))
				.isEqualTo(0L));
	}

	private LettuceConnectionFactory factory() {
		LettuceConnectionFactory factory = Connections
			.start(new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()),
					LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build()));
		this.factories.add(factory);
		// The shared connection opened before the test, as a running application has it:
		// in a cold JVM on a loaded machine its handshake may outlast the short command
		// timeout ("Connection initialization timed out after 500 millisecond(s)").
		for (int tries = 1;; tries++) {
			try (RedisConnection connection = factory.getConnection()) {
				connection.ping();
				return factory;
			}
			catch (RuntimeException ex) {
				if (tries == 5) {
					throw ex;
				}
			}
		}
	}

}
