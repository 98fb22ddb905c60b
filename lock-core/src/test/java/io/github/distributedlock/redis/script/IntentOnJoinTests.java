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
 * A writer held back by readers sets a writer intent, and drops it with the attempt that
 * wins the lock: also when that attempt joins a hold its own (custom) owner took
 * meanwhile, rather than taking the lock anew. Found by the simulation (seed 1159 without
 * faults): the join left the intent, and new readers waited for a writer that no longer
 * waited, up to the readers' lease plus 500 ms.
 */
class IntentOnJoinTests {

	private static final String LOCK = "ij:{j}";

	private static final String READERS = LOCK + ":readers";

	private static final String READ_HOLDS = LOCK + ":readholds";

	private static final String INTENT = LOCK + ":intent";

	private static final String REQUESTS = LOCK + ":requests";

	private static final String WRITER = "custom:writers";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldDropTheIntentWhenTheWriterJoinsItsOwnersHold() {
		assertThat(acquireRead("reader")).isEqualTo(1L);
		// Held back by the reader: the intent keeps new readers out while it waits.
		assertThat(acquire("hold-1", false, "1000:w1")).isEqualTo(0L);
		assertThat(redis.server().command("GET", INTENT)).isEqualTo(LockOwners.digest(WRITER));
		releaseRead("reader");
		// Another thread of the same owner takes the lock, and the waiting writer's next
		// attempt (it may have set the intent) joins that hold.
		assertThat(acquire("hold-2", false, "")).isEqualTo(1L);
		assertThat(acquire("hold-1", true, "1000:w1")).isEqualTo(1L);
		assertThat(redis.server().command("EXISTS", INTENT)).isEqualTo(0L);
	}

	private long acquire(String hold, boolean mayHaveIntent, String request) {
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, INTENT, REQUESTS), WRITER, hold, "10000", "30000", request,
				"30000", mayHaveIntent ? "1" : "0", "1", "1", "60000");
		return (Long) reply.get(0);
	}

	private long acquireRead(String owner) {
		List<?> reply = (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE_READ,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, READ_HOLDS, INTENT, REQUESTS, LOCK + ":released"), owner,
				owner + "-read", "10000", "1", "60000", "", "30000");
		return (Long) reply.get(0);
	}

	private void releaseRead(String owner) {
		ScriptEval.eval(redis.server(), LockScripts.RELEASE_READ, List.of(READERS, READ_HOLDS, LOCK + ":released"),
				owner, owner + "-read", "0");
	}

}
