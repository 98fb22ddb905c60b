package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Taking one's own reservation has no request to withdraw ({@code acquire.lua}'s taking,
 * issue 25): the release took the request out of the line when it reserved, no
 * reservation is made while a downgrade reads, and no reader joins a writer's
 * reservation, so no path leaves the taker's request in the line. Written by an
 * adversarial review of that change.
 */
class OwnReservationLineTests {

	private static final String LOCK = "or:{o}";

	private static final String REQUESTS = LOCK + ":requests";

	private static final String READERS = LOCK + ":readers";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldLeaveNoRequestWhenTheOwnReservationIsTakenTwice() {
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("waiter", "2000:w")).isEqualTo(0L);
		assertThat(release("holder", token())).isZero();
		assertThat(redis.server().command("HGET", LOCK, "reserved")).isEqualTo("2000:w");
		// Run twice: a re-sent attempt.
		assertThat(acquire("waiter", "2000:w")).isEqualTo(1L);
		assertThat(acquire("waiter", "2000:w")).isEqualTo(1L);
		assertThat(redis.server().command("ZCARD", REQUESTS)).isEqualTo(0L);
	}

	@Test
	void shouldNotReserveForAWriterWhileADowngradeReads() {
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquireRead("holder", "")).isEqualTo(1L);
		assertThat(acquire("waiter", "2000:w")).isEqualTo(0L);
		assertThat(release("holder", token())).isZero();
		// No reservation while reading: acquire.lua's readers branch never sees one for
		// us.
		assertThat(redis.server().command("HGET", LOCK, "reserved")).isNull();
		assertThat(acquire("waiter", "2000:w")).isEqualTo(0L);
		assertThat(redis.server().command("ZCARD", REQUESTS)).isEqualTo(1L);
	}

	@Test
	void shouldKeepReadersOutOfAWritersReservation() {
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("waiter", "2000:w")).isEqualTo(0L);
		assertThat(release("holder", token())).isZero();
		assertThat(acquireRead("holder", "")).isEqualTo(0L);
		assertThat(acquireRead("reader", "2000:r")).isEqualTo(0L);
		assertThat(redis.server().command("EXISTS", READERS)).isEqualTo(0L);
		assertThat(acquire("waiter", "2000:w")).isEqualTo(1L);
		assertThat(redis.server().command("ZRANGE", REQUESTS, "0", "-1")).isEqualTo(List.of("2000:r"));
	}

	/**
	 * Taking one's own reservation asks nothing about readers: the tests above show that
	 * none can be there. A lock found free still asks.
	 */
	@Test
	void shouldNotLookForReadersWhenTakingTheOwnReservation() {
		assertThat(acquire("holder", "")).isEqualTo(1L);
		assertThat(acquire("waiter", "2000:w")).isEqualTo(0L);
		assertThat(release("holder", token())).isZero();
		long before = existsCalls();
		assertThat(acquire("waiter", "2000:w")).isEqualTo(1L);
		assertThat(existsCalls() - before).isZero();
		assertThat(release("waiter", token())).isZero();
		// Free, and taken by an attempt that carries a request: it looks.
		before = existsCalls();
		assertThat(acquire("other", "2000:o")).isEqualTo(1L);
		assertThat(existsCalls() - before).isOne();
	}

	private long existsCalls() {
		String stats = String.valueOf(redis.server().command("INFO", "commandstats"));
		java.util.regex.Matcher calls = java.util.regex.Pattern.compile("cmdstat_exists:calls=(\\d+)").matcher(stats);
		return calls.find() ? Long.parseLong(calls.group(1)) : 0;
	}

	private long acquire(String owner, String request) {
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, LOCK + ":intent", REQUESTS), owner, owner + "-hold",
				"10000", "-1", request, "30000", "0", "0", "1", "60000");
		return (Long) reply.get(0);
	}

	private long acquireRead(String owner, String request) {
		List<?> reply = (List<?>) ScriptEval.eval(
				redis.server(), LockScripts.ACQUIRE_READ, List.of(LOCK, LockKeys.fence(LOCK), READERS,
						LOCK + ":readholds", LOCK + ":intent", REQUESTS, LOCK + ":released"),
				owner, owner + "-read", "10000", "1", "60000", request, "30000");
		return (Long) reply.get(0);
	}

	private long release(String owner, String token) {
		return (Long) ScriptEval.eval(redis.server(), LockScripts.RELEASE,
				List.of(LOCK, LOCK + ":released", REQUESTS, READERS), owner, token, owner + "-hold", "1", "0");
	}

	private String token() {
		return String.valueOf(redis.server().command("HGET", LOCK, "token"));
	}

}
