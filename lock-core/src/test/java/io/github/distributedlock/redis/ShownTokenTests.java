package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.blocking.BlockingPort;
import io.github.distributedlock.redis.blocking.LockCommands;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.NoHoldEvents;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A hold whose shown token is not the one Redis records, as a holder a cohort passes the
 * lock to will have (docs/design/cohorting.md, rule 3): every script it sends carries the
 * hold's token, and what it shows carries its own. On a real redis-server.
 */
class ShownTokenTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldSendTheHoldsTokenAndShowItsOwn() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		LockName name = LockName.of("shown", "a");
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory).build()) {
			RedisLockHandle held = (RedisLockHandle) template
				.acquire(LockRequest.builder("shown").key("a").lease(Duration.ofSeconds(30)).autoRenew(false).build());
			Grant grant = held.hold().grant();
			long shown = grant.token() + 3;
			Grant passed = new Grant(grant.spec(), grant.owner(), grant.token(), grant.hold(), grant.sentNanos(), true,
					grant.waitedFor(), grant.attempts(), shown, null);
			LockHold hold = new LockHold(passed, System.nanoTime(), true, new NoHoldEvents(), null);
			BlockingPort port = new BlockingPort(new LockCommands(new StringRedisTemplate(factory)), null,
					"shown-token-test");
			try {
				assertThat(extend(hold, port, 60_000)).as("the extension's reply").isEqualTo(1L);
				assertThat((Long) redis.server().command("PTTL", template.lockKey(name)))
					.as("ms the lock lives in Redis after the extension")
					.isGreaterThan(30_000);
				assertThat(hold).hasToString("LockHold[" + name + ", token=" + shown + "]");
				assertThat(template.forceRelease(name)).isTrue();
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> extend(hold, port, 60_000))
					.havingCause()
					.isInstanceOfSatisfying(LockLeaseLostException.class,
							(lost) -> assertThat(lost.getFencingToken()).as("the token the loss reports")
								.isEqualTo(shown));
			}
			finally {
				port.close();
			}
		}
		finally {
			factory.destroy();
		}
	}

	private static Long extend(LockHold hold, BlockingPort port, long leaseMillis) throws Exception {
		CompletableFuture<Long> done = new CompletableFuture<>();
		hold.extend(port, leaseMillis, Completion.of(done::complete, done::completeExceptionally));
		return done.get(10, TimeUnit.SECONDS);
	}

}
