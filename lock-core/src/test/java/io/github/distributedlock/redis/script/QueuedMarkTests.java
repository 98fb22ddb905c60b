package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The 'queued' mark that lets the release of a lock nobody waited for skip the line of
 * requests: every way requests can come to wait for a hold leaves the hold marked, so a
 * hand-off is never missed.
 */
class QueuedMarkTests {

	private static final String LOCK = "qm:{q}";

	private static final String REQUESTS = LOCK + ":requests";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldMarkAHoldOnlyOnceARequestWaitsForIt() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(redis.server().command("HGET", LOCK, "queued")).as("taken while nobody waited").isNull();
		assertThat(acquire("waiter", "2000:w")).isEqualTo(0L);
		assertThat(redis.server().command("HGET", LOCK, "queued")).isEqualTo("1");
		assertThat(release("holder", token())).isZero();
		assertThat(redis.server().command("HGET", LOCK, "reserved")).isEqualTo("2000:w");
	}

	@Test
	void shouldMarkAHoldTakenWhileRequestsWait() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("waiter", "2000:w")).isEqualTo(0L);
		// The holder's lease ends; someone else takes the lock before the waiter tries
		// again.
		redis.server().command("DEL", LOCK);
		assertThat(acquire("other", "")).isEqualTo(1L);
		assertThat(redis.server().command("HGET", LOCK, "queued")).isEqualTo("1");
		assertThat(release("other", token())).isZero();
		assertThat(redis.server().command("HGET", LOCK, "reserved")).as("handed off").isEqualTo("2000:w");
	}

	@Test
	void shouldFreeAnUnmarkedHoldWithoutLookingForRequests() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(release("holder", token())).isZero();
		assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);
		assertThat(String.valueOf(redis.server().command("INFO", "commandstats"))).doesNotContain("cmdstat_zrange:");
	}

	@Test
	void shouldPublishTheReleaseOnlyOfAHoldThatAnAttemptFoundTaken() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(release("holder", token())).isZero();
		assertThat(String.valueOf(redis.server().command("INFO", "commandstats"))).as("nobody tried it")
			.doesNotContain("cmdstat_publish:");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		// An attempt of a waiter without a request (hand-off off) marks the hold all the
		// same.
		assertThat(acquire("other", "")).isEqualTo(0L);
		assertThat(redis.server().command("HGET", LOCK, "queued")).isEqualTo("1");
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(release("holder", token())).isZero();
		assertThat(String.valueOf(redis.server().command("INFO", "commandstats"))).contains("cmdstat_publish:calls=1,");
	}

	@Test
	void shouldLeaveAHoldOnlyTriedByCallersThatWillNotWaitUnmarkedAndUntold() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("other", "", "0")).as("a try").isEqualTo(0L);
		assertThat(acquire("third", "", "0")).as("a try").isEqualTo(0L);
		assertThat(redis.server().command("HGET", LOCK, "queued")).as("nobody listens for it").isNull();
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(release("holder", token())).isZero();
		assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);
		String stats = String.valueOf(redis.server().command("INFO", "commandstats"));
		assertThat(stats).doesNotContain("cmdstat_publish:").doesNotContain("cmdstat_zrange:");
	}

	@Test
	void shouldMarkAHoldForAnAttemptThatCarriesARequestWhateverItsWait() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("waiter", "2000:w", "0")).isEqualTo(0L);
		assertThat(redis.server().command("HGET", LOCK, "queued")).isEqualTo("1");
		assertThat(release("holder", token())).isZero();
		assertThat(redis.server().command("HGET", LOCK, "reserved")).as("a request in line is served")
			.isEqualTo("2000:w");
	}

	@Test
	void shouldKeepTheMarkOfAWaiterWhenATryFollows() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("waiter", "")).isEqualTo(0L);
		assertThat(acquire("other", "", "0")).as("a try").isEqualTo(0L);
		assertThat(redis.server().command("HGET", LOCK, "queued")).isEqualTo("1");
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(release("holder", token())).isZero();
		assertThat(String.valueOf(redis.server().command("INFO", "commandstats"))).contains("cmdstat_publish:calls=1,");
	}

	@Test
	void shouldWriteTheMarkOnceForManyFailedAttempts() {
		redis.server().command("FLUSHALL");
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("other", "")).isEqualTo(0L);
		redis.server().command("CONFIG", "RESETSTAT");
		for (int i = 0; i < 5; i++) {
			assertThat(acquire("other", "")).isEqualTo(0L);
		}
		assertThat(String.valueOf(redis.server().command("INFO", "commandstats"))).doesNotContain("cmdstat_hset:");
	}

	private long acquire(String owner, String request) {
		return acquire(owner, request, "-1");
	}

	private long acquire(String owner, String request, String waitMillis) {
		List<?> reply = (List<?>) eval(LockScripts.ACQUIRE,
				List.of(LOCK, LockKeys.fence(LOCK), LOCK + ":readers", LOCK + ":intent", REQUESTS), owner,
				owner + "-hold", "10000", waitMillis, request, "30000", "0", "0", "1", "60000");
		return (Long) reply.get(0);
	}

	private long release(String owner, String token) {
		return (Long) eval(LockScripts.RELEASE, List.of(LOCK, LOCK + ":released", REQUESTS, LOCK + ":readers"), owner,
				token, owner + "-hold", "1", "0");
	}

	private String token() {
		return String.valueOf(redis.server().command("HGET", LOCK, "token"));
	}

	private static Object eval(LuaScript<?> script, List<String> keys, String... args) {
		return ScriptEval.eval(redis.server(), script, keys, args);
	}

}
