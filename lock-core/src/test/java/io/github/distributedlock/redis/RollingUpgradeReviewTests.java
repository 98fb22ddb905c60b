package io.github.distributedlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review of the 'queued' mark (commit 4afa720) during a rolling upgrade, which
 * docs/design/waiting-and-hand-off.md ("Compatibility") keeps working: a waiter of the
 * engine before it (b0722ba, whose acquire.lua is kept under {@code review/}) marks a
 * hold only when its attempt files a request, so without hand-off it does not mark, and
 * the new release of the hold it waits for tells it nothing: it sleeps until the lease it
 * was told of ends.
 */
class RollingUpgradeReviewTests {

	private static final String LOCK = "ru:{r}";

	private static final String REQUESTS = LOCK + ":requests";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldTellAWaiterOfTheEarlierEngineThatTheLockWasReleased() throws IOException {
		redis.server().command("FLUSHALL");
		assertThat(acquire(new String(LockScripts.ACQUIRE.text(), StandardCharsets.UTF_8), "holder")).isEqualTo(1L);
		String earlier = resource("review/lib-b0722ba.lua") + "\n" + resource("review/acquire-b0722ba.lua");
		// The earlier engine's waiter, hand-off off: it files no request.
		assertThat(acquire(earlier, "waiter")).isEqualTo(0L);
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(release("holder", String.valueOf(redis.server().command("HGET", LOCK, "token")))).isZero();
		assertThat(String.valueOf(redis.server().command("INFO", "commandstats"))).as("the waiter is told")
			.contains("cmdstat_publish:calls=1,");
	}

	private long acquire(String script, String owner) {
		List<?> reply = (List<?>) eval(script,
				List.of(LOCK, LockKeys.fence(LOCK), LOCK + ":readers", LOCK + ":intent", REQUESTS), owner, "10000", "1",
				"60000", "-1", "0", "0", "", "30000");
		return (Long) reply.get(0);
	}

	private long release(String owner, String token) {
		return (Long) eval(new String(LockScripts.RELEASE.text(), StandardCharsets.UTF_8),
				List.of(LOCK, LOCK + ":released", REQUESTS, LOCK + ":readers"), owner, token, "1", "0");
	}

	private static String resource(String name) throws IOException {
		try (InputStream in = RollingUpgradeReviewTests.class.getResourceAsStream(name)) {
			assertThat(in).as(name).isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private static Object eval(String script, List<String> keys, String... args) {
		List<String> command = new ArrayList<>(List.of("EVAL", script, Integer.toString(keys.size())));
		command.addAll(keys);
		command.addAll(List.of(args));
		return redis.server().command(command.toArray(String[]::new));
	}

}
