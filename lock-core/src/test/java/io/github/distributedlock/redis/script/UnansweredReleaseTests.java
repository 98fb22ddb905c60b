package io.github.distributedlock.redis.script;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The undo of an attempt whose reply never came ({@link LockKind#releaseUnanswered}): it
 * names the hold by its owner and hold id alone, since the token was never learned. It
 * ends that hold and only that one, never takes the lock, never lengthens a lease, and
 * run twice does nothing more. On a real redis-server, with the calls the engine builds.
 */
class UnansweredReleaseTests {

	private static final String OWNER = "instance:7";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private final LockRequestResolver resolver = new LockRequestResolver(LockDefaults.STANDARD, new LockKeys("undo", 0),
			false, true, new RedisServerFeatures(null, false, false), 5_000);

	@Test
	void shouldEndTheHoldTheLostAttemptTookAndWakeTheLine() {
		LockSpec spec = spec("a", false);
		granted(acquire(spec, "p.1", ""));
		// A waiter in line: the undo is the hold's last release, so the lock is reserved
		// for it, as any last release does.
		assertThat(acquire(spec, "q.1", "2000:q.1r", "other").get(0)).as("the waiter's attempt").isEqualTo(0L);
		assertThat(run(spec.kind().releaseUnanswered(spec, OWNER, "p.1", true))).as("holds left").isEqualTo(0L);
		assertThat(redis.server().command("HGET", spec.lockKey(), "reserved")).as("reserved for")
			.isEqualTo("2000:q.1r");
		// Reserved for the waiter's request: nobody's hold, which the undo leaves alone.
		assertThat(run(spec.kind().releaseUnanswered(spec, OWNER, "p.1", true))).as("the undo run twice")
			.isEqualTo(-2L);
		assertThat(redis.server().command("HGET", spec.lockKey(), "reserved")).as("still reserved for")
			.isEqualTo("2000:q.1r");
	}

	@Test
	void shouldEndOnlyItsOwnHoldOfTheOwner() {
		LockSpec spec = spec("b", false);
		long token = granted(acquire(spec, "p.1", ""));
		// A re-entry whose reply was lost, then undone: the outer hold stays, lease and
		// all.
		granted(acquireAgain(spec, "p.2"));
		redis.server().command("PEXPIRE", spec.lockKey(), "20000");
		assertThat(run(spec.kind().releaseUnanswered(spec, OWNER, "p.2", true))).as("holds left").isEqualTo(1L);
		assertThat(run(spec.kind().releaseUnanswered(spec, OWNER, "p.2", true))).as("the undo run twice").isEqualTo(1L);
		assertThat(fields(spec)).containsExactly("#p.1");
		assertThat(redis.server().command("HGET", spec.lockKey(), "token")).isEqualTo(Long.toString(token));
		assertThat((Long) redis.server().command("PTTL", spec.lockKey())).as("the outer hold's lease")
			.isBetween(15_000L, 20_000L);
	}

	@Test
	void shouldTakeNothingWhenTheLostAttemptTookNothing() {
		LockSpec spec = spec("c", false);
		assertThat(run(spec.kind().releaseUnanswered(spec, OWNER, "p.1", true))).as("on a free lock").isEqualTo(-1L);
		assertThat(redis.server().command("EXISTS", spec.lockKey())).isEqualTo(0L);
		granted(acquire(spec, "q.1", "", "other"));
		assertThat(run(spec.kind().releaseUnanswered(spec, OWNER, "p.1", true))).as("on another owner's lock")
			.isEqualTo(-2L);
		assertThat(fields(spec)).containsExactly("#q.1");
	}

	@Test
	void shouldEndTheFairHoldTheLostAttemptTook() {
		LockSpec spec = spec("d", true);
		granted(acquire(spec, "p.1", ""));
		assertThat(run(spec.kind().releaseUnanswered(spec, OWNER, "p.1", true))).as("holds left").isEqualTo(0L);
		assertThat(redis.server().command("EXISTS", spec.lockKey())).as("the fair lock, once undone").isEqualTo(0L);
	}

	private LockSpec spec(String key, boolean fair) {
		return this.resolver
			.resolve(LockRequest.builder("undo").key(key).fair(fair).waitTime(Duration.ofSeconds(5)).build());
	}

	private static List<?> acquire(LockSpec spec, String hold, String request) {
		return acquire(spec, hold, request, OWNER);
	}

	private static List<?> acquire(LockSpec spec, String hold, String request, String owner) {
		return (List<?>) run(
				spec.kind()
					.acquire(spec,
							new Acquisition.Attempt(owner, hold, 0, 5_000, false, false,
									request.isEmpty() ? null : new HandOffRequest(request), 1),
							LockKeys.FENCE_IDLE_MILLIS));
	}

	private static List<?> acquireAgain(LockSpec spec, String hold) {
		return (List<?>) run(spec.kind()
			.acquire(spec, new Acquisition.Attempt(OWNER, hold, 0, 5_000, false, true, null, 1),
					LockKeys.FENCE_IDLE_MILLIS));
	}

	private static Object run(ScriptCall call) {
		return ScriptEval.eval(redis.server(), call.script(), call.keys(), call.argv().toArray(String[]::new));
	}

	private static long granted(List<?> reply) {
		assertThat(reply.get(0)).as("granted").isEqualTo(1L);
		return (Long) reply.get(1);
	}

	private static List<String> fields(LockSpec spec) {
		List<?> keys = (List<?>) redis.server().command("HKEYS", spec.lockKey());
		return keys.stream().map(String::valueOf).filter((field) -> field.startsWith("#")).toList();
	}

}
