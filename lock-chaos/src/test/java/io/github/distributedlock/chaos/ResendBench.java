package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplateBuilder;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServers;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis, a {@link ChaosProxy} in front of it and Redis's record of the commands it ran,
 * for tests that make Redis run one of the engine's scripts twice: the proxy drops the
 * reply to that script's {@code EVALSHA} and cuts the connection, and Lettuce re-sends
 * the command after it reconnects (issue 22). Faults hit a script by its SHA-1, so that
 * other commands in flight (a waiter's attempts, a watchdog) cannot take the fault.
 * <p>
 * Templates made here are closed, with their connection factories, by
 * {@link #disconnect()}. Not thread-safe: one test at a time.
 */
final class ResendBench implements AutoCloseable {

	/**
	 * The lease of holds that must outlast the test: a hold counted twice or left behind
	 * shows as a lock that stays taken, not as one that expires meanwhile.
	 */
	static final Duration LEASE = Duration.ofSeconds(30);

	/**
	 * How soon after the dropped reply the client sends the command again: it reconnects
	 * to the proxy on loopback at once.
	 */
	private static final Duration RESEND_WITHIN = Duration.ofMillis(300);

	private final RedisProcess redis;

	private final ChaosProxy proxy;

	private final CommandRuns monitor;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockTemplate> templates = new ArrayList<>();

	private ResendBench(RedisProcess redis, ChaosProxy proxy, CommandRuns monitor) {
		this.redis = redis;
		this.proxy = proxy;
		this.monitor = monitor;
	}

	static ResendBench start() throws IOException {
		RedisProcess redis = RedisServers.launch();
		ChaosProxy proxy = null;
		try {
			loadEveryScript(redis);
			proxy = ChaosProxy.start(redis.port());
			return new ResendBench(redis, proxy, CommandRuns.start(redis));
		}
		catch (IOException | RuntimeException ex) {
			if (proxy != null) {
				proxy.close();
			}
			redis.close();
			throw ex;
		}
	}

	/**
	 * Load every script of the engine, and their library of functions where Redis has
	 * Functions: an {@code FCALL} or {@code EVALSHA} that Redis does not know fails on
	 * both runs, and the engine then runs the script once. Without Functions (Redis 6.2)
	 * the engine sends {@code EVALSHA}, which faults hit there
	 * ({@link ReplyDrop#runnableOn}).
	 */
	static void loadEveryScript(RedisServer redis) {
		if (redis.hasFunctions()) {
			redis.command("FUNCTION", "LOAD", "REPLACE", ProtocolTimings.functionLibrary());
		}
		for (String script : ProtocolTimings.scriptTexts()) {
			redis.command("SCRIPT", "LOAD", script);
		}
	}

	/**
	 * Return a template whose commands go through the proxy: the one whose script is
	 * re-sent.
	 */
	RedisLockTemplate throughProxy() {
		return throughProxy(UnaryOperator.identity());
	}

	RedisLockTemplate throughProxy(UnaryOperator<RedisLockTemplateBuilder> options) {
		return template(this.proxy.port(), options);
	}

	/**
	 * Return a template connected to Redis directly, with owners of its own.
	 */
	RedisLockTemplate direct() {
		return direct(UnaryOperator.identity());
	}

	RedisLockTemplate direct(UnaryOperator<RedisLockTemplateBuilder> options) {
		return template(this.redis.port(), options);
	}

	private RedisLockTemplate template(int port, UnaryOperator<RedisLockTemplateBuilder> options) {
		LettuceConnectionFactory factory = Connections.standalone(port);
		this.factories.add(factory);
		RedisLockTemplate template = options.apply(RedisLockTemplate.builder(factory)).build();
		this.templates.add(template);
		return template;
	}

	/**
	 * Return a fault on the next run of one script ({@code FCALL} or {@code EVALSHA}),
	 * not armed yet.
	 * @param script the script's file name, such as {@code extend.lua}
	 */
	static ReplyDrop onScript(String script) {
		return ReplyDrop.onScript(script);
	}

	/**
	 * Arm a fault on what this Redis runs ({@link ReplyDrop#runnableOn}), counting its
	 * runs from now on.
	 * @return the fault armed, to wait for
	 */
	ReplyDrop arm(ReplyDrop drop) throws InterruptedException {
		this.monitor.mark();
		return this.proxy.arm(drop.runnableOn(this.redis));
	}

	/**
	 * Hold back what Redis answers the proxied templates, pub/sub aside, until
	 * {@link #releaseRepliesOfProxy()}: their commands still run.
	 */
	void holdRepliesOfProxy() {
		this.proxy.holdReplies();
	}

	void releaseRepliesOfProxy() {
		this.proxy.releaseReplies();
	}

	void disarm(ReplyDrop drop) {
		this.proxy.cancel(drop);
	}

	/**
	 * Check that the fault hit its command within the timeout and that Redis ran that
	 * command twice. A command that nobody waits for (an asynchronous one, a watchdog's)
	 * may be re-sent after this is called: its second run is awaited a little, though not
	 * so long that a later, equal command (the watchdog's next renewal) counts too.
	 */
	void assertRanTwice(ReplyDrop drop, Duration timeout) throws InterruptedException {
		try {
			assertThat(drop.awaitDropped(timeout)).as("the proxy dropped the %s", drop).isTrue();
		}
		finally {
			disarm(drop);
		}
		long runs = this.monitor.runs(drop.command());
		long deadline = System.nanoTime() + RESEND_WITHIN.toNanos();
		while (runs < 2 && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
			runs = this.monitor.runs(drop.command());
		}
		assertThat(runs).as("runs of %s", drop).isEqualTo(2);
	}

	/**
	 * Make a call with the reply to its run of a script dropped, and check that Redis ran
	 * that script twice.
	 * @param script the script the call sends, such as {@code extend.lua}
	 */
	<T> T resent(String script, Supplier<T> call) throws InterruptedException {
		ReplyDrop drop = arm(onScript(script));
		T result;
		try {
			result = call.get();
		}
		finally {
			disarm(drop);
		}
		assertRanTwice(drop, Duration.ofSeconds(1));
		return result;
	}

	void resent(String script, Runnable call) throws InterruptedException {
		resent(script, () -> {
			call.run();
			return null;
		});
	}

	/**
	 * Run a call on a thread of its own, which makes it an owner of its own too.
	 */
	static <T> CompletableFuture<T> inBackground(Supplier<T> call) {
		return CompletableFuture.supplyAsync(call, (task) -> {
			Thread thread = new Thread(task, "resend-bench-caller");
			thread.setDaemon(true);
			thread.start();
		});
	}

	/**
	 * Return whether a template gets a lock (and then release it).
	 */
	static boolean takes(RedisLockTemplate template, LockRequest request) {
		Optional<LockHandle> taken = template.tryAcquire(request);
		taken.ifPresent(LockHandle::close);
		return taken.isPresent();
	}

	/**
	 * Check that no key of a lock is left in Redis: its hash, readers, permits, queue,
	 * requests, intent.
	 */
	void assertNoKeysLeft(RedisLockTemplate template, LockName name) {
		assertThat((List<?>) this.redis.command("KEYS", template.lockKey(name) + "*"))
			.as("keys of %s left in Redis", name)
			.isEmpty();
	}

	/**
	 * Return the key's time to live in ms, as Redis reports it (-2: no key, -1: no
	 * expiry).
	 */
	long pttl(String key) {
		return ((Number) command("PTTL", key)).longValue();
	}

	/**
	 * Return the members of a sorted set with their scores, as Redis spells them.
	 */
	Map<String, String> scores(String key) {
		List<?> flat = (List<?>) command("ZRANGE", key, "0", "-1", "WITHSCORES");
		Map<String, String> scores = new LinkedHashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			scores.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
		}
		return scores;
	}

	/**
	 * Return the member of a sorted set with the lowest score.
	 */
	String lowestScored(String key) {
		List<?> lowest = (List<?>) command("ZRANGE", key, "0", "0");
		assertThat(lowest).as("members of %s", key).isNotEmpty();
		return String.valueOf(lowest.get(0));
	}

	long zcard(String key) {
		return ((Number) command("ZCARD", key)).longValue();
	}

	@Nullable Object command(String... args) {
		return this.redis.command(args);
	}

	/**
	 * Close the templates and connection factories made since the last call.
	 */
	void disconnect() {
		this.templates.forEach(RedisLockTemplate::close);
		this.templates.clear();
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.factories.clear();
	}

	@Override
	public void close() {
		disconnect();
		this.monitor.close();
		this.proxy.close();
		this.redis.close();
	}

}
