package io.github.distributedlock.redis.script;

import java.util.List;
import java.util.Map;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code hand-over.lua} on a real redis-server: the release of a lock's last hold that
 * grants the lock to the head of the releaser's JVM's line in the same script
 * (docs/design/waiting-and-hand-off.md, "Hand-off inside one JVM"). A grant makes a new
 * hold for the head, with a new token and the head's lease, and takes the head's request
 * out of the line; a refusal at the limit releases as {@code release.lua} would, any
 * other refusal changes nothing; a second run answers the first run's grant.
 */
class HandOverScriptTests {

	private static final String LOCK = "ho:{h}";

	private static final String REQUESTS = LOCK + ":requests";

	private static final String READERS = LOCK + ":readers";

	private static final String CHANNEL = LOCK + ":released";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@BeforeEach
	void flush() {
		redis.server().command("FLUSHALL");
	}

	@Test
	void shouldGrantTheLockToTheHeadWithANewTokenAndItsOwnLease() {
		long holder = acquire("holder", "");
		assertThat(acquire("head", "2000:h")).isZero();
		List<?> reply = handOver("holder", holder, "head", "2000:h", "5000", "2");
		assertThat(reply.get(0)).isEqualTo(1L);
		long granted = (Long) reply.get(1);
		assertThat(granted).isGreaterThan(holder);
		Map<String, String> hash = hash();
		assertThat(hash).containsEntry("owner", LockOwners.digest("head"))
			.containsEntry("holds", "1")
			.containsEntry("token", Long.toString(granted))
			.containsEntry("#head-hold", "1")
			.containsEntry("queued", "1")
			.doesNotContainKey("#holder-hold");
		assertThat((Long) redis.server().command("PTTL", LOCK)).isBetween(4000L, 5000L);
		assertThat(redis.server().command("ZCARD", REQUESTS)).isEqualTo(0L);
		assertThat(redis.server().command("GET", LockKeys.fence(LOCK))).isEqualTo(Long.toString(granted));
	}

	@Test
	void shouldAnswerTheSameGrantWhenRunTwice() {
		long holder = acquire("holder", "");
		assertThat(acquire("head", "2000:h")).isZero();
		List<?> first = handOver("holder", holder, "head", "2000:h", "5000", "2");
		redis.server().command("PEXPIRE", LOCK, "100");
		List<?> second = handOver("holder", holder, "head", "2000:h", "5000", "2");
		assertThat(second).isEqualTo(first);
		// The lease is lengthened for the second run, never a second token.
		assertThat((Long) redis.server().command("PTTL", LOCK)).isGreaterThan(4000L);
		assertThat(redis.server().command("GET", LockKeys.fence(LOCK))).isEqualTo(String.valueOf(first.get(1)));
		assertThat(hash()).containsEntry("holds", "1");
	}

	@Test
	void shouldLetTheHeadsOwnAttemptFindTheGrantWhoseReplyWasLost() {
		long holder = acquire("holder", "");
		assertThat(acquire("head", "2000:h")).isZero();
		List<?> reply = handOver("holder", holder, "head", "2000:h", "5000", "2");
		List<?> attempt = acquireReply("head", "2000:h");
		assertThat(attempt).isEqualTo(List.of(1L, reply.get(1)));
		assertThat(hash()).containsEntry("holds", "1");
	}

	@Test
	void shouldGrantOnlyLimitTimesInARowWhileAnotherRequestWaits() {
		long token = acquire("c0", "");
		assertThat(acquire("remote", "1000:r")).isZero();
		for (int i = 1; i <= 2; i++) {
			assertThat(acquire("c" + i, "2000:c" + i)).isZero();
			List<?> reply = handOver("c" + (i - 1), token, "c" + i, "2000:c" + i, "5000", "2");
			assertThat(reply.get(0)).isEqualTo(1L);
			token = (Long) reply.get(1);
			assertThat(hash()).containsEntry("run", Integer.toString(i));
		}
		assertThat(acquire("c3", "2000:c3")).isZero();
		// At the limit, the same script releases as release.lua would: the lock is
		// reserved for the oldest request, the remote one (docs/design, "Session 21").
		assertThat(handOver("c2", token, "c3", "2000:c3", "5000", "2")).isEqualTo(List.of(2L));
		assertThat(hash()).containsEntry("reserved", "1000:r")
			.containsEntry("owner", "")
			.containsEntry("holds", "0")
			.containsEntry("token", Long.toString(token))
			.doesNotContainKey("#c2-hold");
		assertThat((Long) redis.server().command("PTTL", LOCK)).isBetween(0L, 1000L);
		assertThat(redis.server().command("ZRANGE", REQUESTS, "0", "-1")).isEqualTo(List.of("2000:c3"));
	}

	@Test
	void shouldDoWhatReleaseDoesWhenRefusingAtTheLimit() {
		// The same state twice: released by hand-over.lua at the limit, and by a refusal
		// and release.lua (the old pair); the keys must end up the same.
		Map<String, Object> passedOn = atTheLimit(true);
		redis.server().command("FLUSHALL");
		Map<String, Object> released = atTheLimit(false);
		assertThat(passedOn).isEqualTo(released);
		assertThat(passedOn.get("hash").toString()).contains("reserved=1000:r");
		assertThat(passedOn.get("requests")).isEqualTo(List.of("2000:c1"));
	}

	private Map<String, Object> atTheLimit(boolean folded) {
		long token = acquire("c0", "");
		// A member of another form, older than any request: dropped, not reserved for.
		redis.server().command("ZADD", REQUESTS, "0", "junk");
		assertThat(acquire("remote", "1000:r")).isZero();
		assertThat(acquire("c1", "2000:c1")).isZero();
		if (folded) {
			assertThat(handOver("c0", token, "c1", "2000:c1", "5000", "0")).isEqualTo(List.of(2L));
		}
		else {
			assertThat(release("c0", token)).isZero();
		}
		Map<String, String> hash = hash();
		// The tokens of the two runs differ (the clock): each keeps its own.
		assertThat(hash.remove("token")).isEqualTo(Long.toString(token));
		return Map.of("hash", hash, "requests", redis.server().command("ZRANGE", REQUESTS, "0", "-1"), "ttl",
				(Long) redis.server().command("PTTL", LOCK) > 0);
	}

	/**
	 * The claim of "Session 21" over lines of several shapes, marked or not: whenever
	 * {@code hand-over.lua} replies {@code [2]}, the keys end as after
	 * {@code release.lua} on the same state (the old pair: a refusal that changed
	 * nothing, then the release). The line is given as members in arrival order; the
	 * head's request is {@code 3000:c1} when listed.
	 */
	@ParameterizedTest(name = "{0}, queued {1}")
	@CsvSource({ "1000:r 3000:c1, true", "1000:r 3000:c1, false", "3000:c1 4000:r, true", "junk 3000:c1 4000:r, true",
			"0:z 3000:c1, true", "junk 0:z, true", "junk 0:z, false", "-5:n 1000:r, true", "1000:r, true" })
	void shouldPassOnAsReleaseDoesForEveryLine(String line, boolean queued) {
		Map<String, Object> passedOn = passedOnFrom(line, queued, true);
		redis.server().command("FLUSHALL");
		Map<String, Object> released = passedOnFrom(line, queued, false);
		assertThat(passedOn).isEqualTo(released);
	}

	@Test
	void shouldReserveOnlyForAClaimItCanPassToRedisAsWritten() {
		// The release passes a claim to PEXPIRE as the member's text: a leading zero or
		// more than 12 digits is another form, dropped before anything is written, not an
		// error halfway through the script.
		long token = acquire("c0", "");
		redis.server().command("ZADD", REQUESTS, "1", "0123:lead");
		redis.server().command("ZADD", REQUESTS, "2", "1234567890123:long");
		redis.server().command("ZADD", REQUESTS, "3", "1000:r");
		redis.server().command("HSET", LOCK, "queued", "1");
		assertThat(release("c0", token)).isZero();
		assertThat(hash()).containsEntry("reserved", "1000:r").containsEntry("owner", "");
		assertThat((Long) redis.server().command("PTTL", LOCK)).isBetween(1L, 1000L);
		assertThat(redis.server().command("EXISTS", REQUESTS)).isEqualTo(0L);
	}

	private Map<String, Object> passedOnFrom(String line, boolean queued, boolean folded) {
		long token = acquire("c0", "");
		String[] members = line.split(" ");
		for (int i = 0; i < members.length; i++) {
			redis.server().command("ZADD", REQUESTS, Integer.toString(i + 1), members[i]);
		}
		if (queued) {
			redis.server().command("HSET", LOCK, "queued", "1");
		}
		String headRequest = line.contains("3000:c1") ? "3000:c1" : "";
		if (folded) {
			assertThat(handOver("c0", token, "c1", headRequest, "5000", "0")).isEqualTo(List.of(2L));
		}
		else {
			assertThat(release("c0", token)).isZero();
		}
		long ttl = (Long) redis.server().command("PTTL", LOCK);
		Map<String, String> hash = hash();
		// The tokens of the two runs differ (the clock): each keeps its own, if any.
		assertThat(hash.remove("token")).isIn(null, Long.toString(token));
		return Map.of("hash", hash, "requests", redis.server().command("ZRANGE", REQUESTS, "0", "-1"), "ttl",
				(ttl < 0) ? ttl : (ttl + 999) / 1000);
	}

	@Test
	void shouldFreeALockNobodyMarkedWhenRefusingAtTheLimit() {
		long token = acquire("c0", "");
		// A request in the line of a lock that no attempt marked 'queued' (as after a
		// reservation expired): release.lua frees the lock and leaves the line alone.
		redis.server().command("ZADD", REQUESTS, "1", "1000:r");
		assertThat(hash()).doesNotContainKey("queued");
		assertThat(handOver("c0", token, "c1", "", "5000", "0")).isEqualTo(List.of(2L));
		assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);
		assertThat(redis.server().command("ZRANGE", REQUESTS, "0", "-1")).isEqualTo(List.of("1000:r"));
	}

	@Test
	void shouldRefuseWithoutChangeWhenRunAgainAfterPassingOn() {
		long token = acquire("c0", "");
		assertThat(acquire("remote", "1000:r")).isZero();
		assertThat(acquire("c1", "2000:c1")).isZero();
		assertThat(handOver("c0", token, "c1", "2000:c1", "5000", "0")).isEqualTo(List.of(2L));
		Map<String, String> after = hash();
		// A re-send: the releaser's hold is gone, so nothing changes ...
		assertThat(handOver("c0", token, "c1", "2000:c1", "5000", "0")).isEqualTo(List.of(0L));
		assertThat(hash()).isEqualTo(after).containsEntry("reserved", "1000:r");
		// ... and the release.lua the releaser then sends finds the lock reserved after
		// this hold: 0, as a second run of release.lua answers today.
		assertThat(release("c0", token)).isZero();
		assertThat(hash()).isEqualTo(after);
		// Freed meanwhile: -1.
		redis.server().command("DEL", LOCK);
		assertThat(handOver("c0", token, "c1", "2000:c1", "5000", "0")).isEqualTo(List.of(0L));
		assertThat(release("c0", token)).isEqualTo(-1L);
	}

	@Test
	void shouldNotCountGrantsWhenNoOtherRequestWaits() {
		long token = acquire("c0", "");
		for (int i = 1; i <= 4; i++) {
			assertThat(acquire("c" + i, "2000:c" + i)).isZero();
			List<?> reply = handOver("c" + (i - 1), token, "c" + i, "2000:c" + i, "5000", "1");
			assertThat(reply.get(0)).isEqualTo(1L);
			token = (Long) reply.get(1);
		}
		assertThat(hash()).containsEntry("run", "1");
	}

	@Test
	void shouldStartANewRunAfterAHoldThatNoGrantMade() {
		long token = acquire("c0", "");
		assertThat(acquire("remote", "1000:r")).isZero();
		assertThat(acquire("c1", "2000:c1")).isZero();
		token = (Long) handOver("c0", token, "c1", "2000:c1", "5000", "1").get(1);
		assertThat(acquire("c2", "2000:c2")).isZero();
		assertThat(handOver("c1", token, "c2", "2000:c2", "5000", "1")).isEqualTo(List.of(2L));
		assertThat(hash()).containsEntry("reserved", "1000:r");
		// The remote request takes its reservation: a hold no grant made, so a new run.
		token = acquire("remote", "1000:r");
		assertThat(token).isPositive();
		List<?> reply = handOver("remote", token, "c2", "2000:c2", "5000", "1");
		assertThat(reply.get(0)).isEqualTo(1L);
		assertThat(hash()).containsEntry("run", "1");
	}

	@Test
	void shouldRefuseAndChangeNothingUnlessTheReleaserHoldsTheOnlyHold() {
		long holder = acquire("holder", "");
		assertThat(acquire("head", "2000:h")).isZero();
		// Another token, another owner, the head's own owner.
		assertRefused("holder", holder + 1, "head");
		assertRefused("other", holder, "head");
		assertRefused("holder", holder, "holder");
		// A re-entry: not the last hold.
		ScriptEval.eval(redis.server(), LockScripts.ACQUIRE,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, LOCK + ":intent", REQUESTS), "holder", "inner", "10000",
				"-1", "", "30000", "0", "1");
		assertRefused("holder", holder, "head");
	}

	@Test
	void shouldRefuseWhileTheReleaserReadsOrAMinimumHoldIsKept() {
		long holder = acquire("holder", "");
		assertThat(acquire("head", "2000:h")).isZero();
		redis.server().command("ZADD", READERS, "99999999999999", LockOwners.digest("holder"));
		assertRefused("holder", holder, "head");
		redis.server().command("DEL", READERS);
		redis.server().command("HSET", LOCK, "kept", "99999999999999");
		assertRefused("holder", holder, "head");
	}

	@Test
	void shouldRefuseAReservedOrMissingLock() {
		long holder = acquire("holder", "");
		assertThat(acquire("head", "2000:h")).isZero();
		assertThat(acquire("remote", "1000:r")).isZero();
		assertThat(release("holder", holder)).isZero();
		assertThat(hash()).containsEntry("owner", "").containsKey("reserved");
		assertRefused("holder", holder, "remote");
		redis.server().command("DEL", LOCK);
		assertThat(handOver("holder", holder, "head", "2000:h", "5000", "2")).isEqualTo(List.of(0L));
		assertThat(redis.server().command("EXISTS", LOCK)).isEqualTo(0L);
	}

	private void assertRefused(String releaser, long token, String head) {
		Map<String, String> before = hash();
		List<?> requests = (List<?>) redis.server().command("ZRANGE", REQUESTS, "0", "-1");
		assertThat(handOver(releaser, token, head, "2000:h", "5000", "2")).isEqualTo(List.of(0L));
		assertThat(hash()).isEqualTo(before);
		assertThat(redis.server().command("ZRANGE", REQUESTS, "0", "-1")).isEqualTo(requests);
	}

	private List<?> handOver(String releaser, long token, String head, String headRequest, String lease, String limit) {
		return (List<?>) ScriptEval.eval(redis.server(), LockScripts.HAND_OVER,
				List.of(LOCK, REQUESTS, READERS, LockKeys.fence(LOCK), CHANNEL), releaser, Long.toString(token),
				releaser + "-hold", LockOwners.digest(head), head + "-hold", lease, headRequest, limit);
	}

	private long acquire(String owner, String request) {
		List<?> reply = acquireReply(owner, request);
		return ((Long) reply.get(0) == 1L) ? (Long) reply.get(1) : 0;
	}

	private List<?> acquireReply(String owner, String request) {
		return (List<?>) ScriptEval.eval(redis.server(), LockScripts.ACQUIRE,
				List.of(LOCK, LockKeys.fence(LOCK), READERS, LOCK + ":intent", REQUESTS), owner, owner + "-hold",
				"10000", "-1", request);
	}

	private long release(String owner, long token) {
		return (Long) ScriptEval.eval(redis.server(), LockScripts.RELEASE, List.of(LOCK, CHANNEL, REQUESTS, READERS),
				owner, Long.toString(token), owner + "-hold");
	}

	private Map<String, String> hash() {
		List<?> flat = (List<?>) redis.server().command("HGETALL", LOCK);
		Map<String, String> hash = new java.util.TreeMap<>();
		for (int i = 0; i < flat.size(); i += 2) {
			hash.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
		}
		return hash;
	}

}
