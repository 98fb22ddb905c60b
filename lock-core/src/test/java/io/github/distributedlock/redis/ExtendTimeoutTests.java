package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An extension whose reply never comes fails, however the port's timer that tells its
 * failure and the caller's own wait for it meet: a failure kept for the caller just as
 * the caller gave up must still reach it, or {@code extend} returns as if the lease were
 * extended.
 */
class ExtendTimeoutTests {

	private static final Duration TIMEOUT = Duration.ofMillis(20);

	private static final int EXTENSIONS = 300;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	/**
	 * Acquire the lock: in a cold JVM the first handshake and the scripts' loading may
	 * take longer than the command timeout, so they are tried again.
	 */
	private static LockHandle acquire(RedisLockTemplate template) {
		for (int i = 0;; i++) {
			try {
				return template
					.acquire(LockRequest.builder("extend-timeout").key("k").lease(Duration.ofSeconds(60)).build());
			}
			catch (LockAccessException ex) {
				if (i == 20) {
					throw ex;
				}
			}
		}
	}

	private static RedisLockTemplate connected(LettuceConnectionFactory factory) {
		for (int i = 0;; i++) {
			try {
				return RedisLockTemplate.builder(factory).build();
			}
			catch (RuntimeException ex) {
				if (i == 20) {
					throw ex;
				}
			}
		}
	}

	@Test
	void anExtensionWhoseReplyNeverComesAlwaysFails() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server().host(), redis.server().port(),
				TIMEOUT);
		int returned = 0;
		AtomicBoolean busy = new AtomicBoolean(true);
		List<Thread> load = new ArrayList<>();
		try (RedisLockTemplate template = connected(factory)) {
			LockHandle held = acquire(template);
			// Threads that keep both cores busy, so that the timer that tells a
			// failure and the caller that gives up are preempted at any point.
			for (int i = 0; i < 4; i++) {
				Thread spinner = new Thread(() -> {
					long spins = 0;
					while (busy.get()) {
						spins++;
					}
					assertThat(spins).isNotNegative();
				});
				spinner.setDaemon(true);
				spinner.start();
				load.add(spinner);
			}
			redis.managedServer().pause();
			try {
				for (int i = 0; i < EXTENSIONS; i++) {
					try {
						held.extend(Duration.ofSeconds(30));
						returned++;
					}
					catch (LockAccessException expected) {
						// Timed out, as every one must.
					}
				}
			}
			finally {
				redis.managedServer().resume();
				busy.set(false);
				for (Thread spinner : load) {
					spinner.join();
				}
			}
			try {
				held.close();
			}
			catch (LockAccessException ex) {
				// The release's 20 ms timeout may run out on a loaded machine: the lease
				// ends the hold, and the assertion is about the extensions.
			}
		}
		finally {
			busy.set(false);
			factory.destroy();
		}
		assertThat(returned).as("extensions of %d that returned although Redis never answered", EXTENSIONS).isZero();
	}

}
