package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The writer intent holds the owner's digest, so the writers of one custom owner share
 * it: one that joins its owner's hold drops it (as {@code acquire.lua} does for one that
 * takes the lock) while another writer of that owner may still wait. That writer loses
 * nothing: while its owner holds the lock no reader of another owner joins, its attempts
 * then join the hold (or fail, not reentrant), and when the hold ends its request, filed
 * while the readers held it back, is older than any reader's held back since, so the
 * release reserves the lock for it. Written by an adversarial review of the intent drop
 * on joining.
 */
class SharedOwnerIntentTests {

	private static final String LOCK = "so:{s}";

	private static final String READERS = LockKeys.readers(LOCK);

	private static final String INTENT = LockKeys.writerIntent(LOCK);

	private static final String REQUESTS = LockKeys.requests(LOCK);

	private static final String SHARED = "custom:shared";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldServeTheOtherWaitingWriterOfTheOwnerBeforeNewReaders() {
		assertThat(acquireRead("reader", "")).isEqualTo(1L);
		// Held back by the reader: the shared intent, and its request in line.
		assertThat(acquire("h3", "2000:a-w3", "0", "0", "1").get(0)).isEqualTo(0L);
		assertThat(redis.server().command("GET", INTENT)).isEqualTo(LockOwners.digest(SHARED));
		releaseRead("reader");
		// A writer of the owner that was never held back takes it (the intent stays), and
		// one that was joins it: the intent goes.
		assertThat(acquire("h2", "", "0", "0", "1").get(0)).isEqualTo(1L);
		assertThat(acquire("h1", "", "1", "1", "1").get(0)).isEqualTo(1L);
		assertThat(redis.server().command("EXISTS", INTENT)).isEqualTo(0L);
		// No reader of another owner gets in while the owner holds it; it lines up.
		assertThat(acquireRead("late", "2000:z-r")).isEqualTo(0L);
		String held = String.valueOf(redis.server().command("HGET", LOCK, "token"));
		assertThat(release("h2", held)).isOne();
		assertThat(release("h1", held)).isZero();
		// The waiting writer's request is the oldest (named so that it comes first even
		// when both were filed in one millisecond): the lock is kept for it.
		assertThat(redis.server().command("HGET", LOCK, "reserved")).isEqualTo("2000:a-w3");
		assertThat(acquireRead("late", "2000:z-r")).isEqualTo(0L);
		assertThat(acquire("h3", "2000:a-w3", "1", "0", "1").get(0)).isEqualTo(1L);
	}

	@Test
	void shouldDropTheIntentOnASelfDeadlockAsTheFailedWaitWould() {
		assertThat(acquireRead("reader", "")).isEqualTo(1L);
		assertThat(acquire("h1", "", "0", "1", "0").get(0)).isEqualTo(0L);
		releaseRead("reader");
		assertThat(acquire("h2", "", "0", "0", "1").get(0)).isEqualTo(1L);
		assertThat(redis.server().command("EXISTS", INTENT)).isEqualTo(1L);
		// Not reentrant, holding it: a self-deadlock, which ends the wait; the driver
		// then drops the intent (SingleAcquisition.ended), the script
		// already has.
		assertThat(acquire("h1", "", "1", "1", "0").get(0)).isEqualTo(-1L);
		assertThat(redis.server().command("EXISTS", INTENT)).isEqualTo(0L);
	}

	private List<?> acquire(String hold, String request, String mayHaveIntent, String holdsIt, String reentrant) {
		return (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, INTENT, REQUESTS), SHARED, hold, "10000", "-1", request,
				"30000", mayHaveIntent, holdsIt, reentrant, "60000");
	}

	private long acquireRead(String owner, String request) {
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE_READ,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, LockKeys.readHolds(LOCK), INTENT, REQUESTS,
						LockKeys.releaseChannel(LOCK)),
				owner, owner + "-read", "10000", "1", "60000", request, "30000");
		return (Long) reply.get(0);
	}

	private void releaseRead(String owner) {
		ScriptEval.eval(redis.server(), LockScripts.RELEASE_READ,
				List.of(READERS, LockKeys.readHolds(LOCK), LockKeys.releaseChannel(LOCK)), owner, owner + "-read", "0");
	}

	private long release(String hold, String token) {
		return (Long) ScriptEval.eval(redis.server(), LockScripts.RELEASE,
				List.of(LOCK, LockKeys.releaseChannel(LOCK), REQUESTS, READERS), SHARED, token, hold, "1", "0");
	}

}
