package io.github.distributedlock.simulation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.test.RedisCommandException;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;
import org.jspecify.annotations.Nullable;

/**
 * A real redis-server as the differential test watches it. Each call goes out in one
 * write with what brackets it: {@code TIME}, the call, {@code TIME}, a marker message, a
 * dump of the keys it names, and a second marker; so the time the call ran is known to
 * within the two readings, the messages it published are those a subscriber reads before
 * the first marker, and those between the markers are the dump's.
 * <p>
 * The server publishes keyspace notifications ({@code notify-keyspace-events Kgx}), and
 * its active expiry is off ({@code DEBUG SET-ACTIVE-EXPIRE 0}, which needs the server
 * started with {@code enable-debug-command}): a key then expires only when a command
 * finds it expired, so every {@code expired} event comes from a call or a dump at a known
 * place, and can be compared in order with the model's, as the {@code del} and
 * {@code expire} events are. The dump is a script, so its own lookups expire keys too:
 * their events are the dump's messages.
 */
final class RealRedis implements AutoCloseable {

	static final String MARKER_CHANNEL = "sim:marker";

	/**
	 * Returns the time, then for each key {key, type} or {key, type, PEXPIRETIME,
	 * contents, encoding}; all keys if ARGV[1] is 'all'. With 'keys', then every other
	 * key the server has, as {key, type, ...} with 'other' appended: the named keys are
	 * looked up (which expires them), the others listed by KEYS (which skips expired keys
	 * and expires none, so it publishes nothing).
	 */
	private static final String DUMP = """
			local clock = redis.call('TIME')
			local out = {clock[1], clock[2]}
			local keys = KEYS
			if ARGV[1] == 'all' then
				keys = redis.call('KEYS', '*')
			end
			local function item(key)
				local kind = redis.call('TYPE', key)['ok']
				local item = {key, kind}
				if kind ~= 'none' then
					item[3] = redis.call('PEXPIRETIME', key)
					if kind == 'string' then
						item[4] = {redis.call('GET', key)}
					elseif kind == 'hash' then
						item[4] = redis.call('HGETALL', key)
					elseif kind == 'zset' then
						item[4] = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
					elseif kind == 'list' then
						item[4] = redis.call('LRANGE', key, 0, -1)
					else
						item[4] = {}
					end
					item[5] = redis.call('OBJECT', 'ENCODING', key)
				end
				return item
			end
			local named = {}
			for _, key in ipairs(keys) do
				named[key] = true
				out[#out + 1] = item(key)
			end
			if ARGV[1] == 'keys' then
				for _, key in ipairs(redis.call('KEYS', '*')) do
					if not named[key] then
						local other = item(key)
						other[6] = 'other'
						out[#out + 1] = other
					end
				end
			end
			return out
			""";

	private final RespConnection commands;

	private final RespConnection subscriber;

	private final String dumpSha;

	private long markers;

	RealRedis(RedisServer server, List<String> channels) {
		this.commands = server.connect();
		this.subscriber = server.connect();
		this.dumpSha = load(DUMP);
		check(this.commands.command("CONFIG", "SET", "notify-keyspace-events", "Kgx"));
		check(this.commands.command("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
		List<String> subscribe = new ArrayList<>(List.of("SUBSCRIBE", MARKER_CHANNEL));
		subscribe.addAll(channels);
		this.subscriber.send(subscribe.toArray(new String[0]));
		for (int i = 1; i < subscribe.size(); i++) {
			next();
		}
	}

	/**
	 * Load a script.
	 * @return its SHA-1, as Redis computed it
	 */
	String load(String text) {
		return (String) check(this.commands.command("SCRIPT", "LOAD", text));
	}

	void flushAll() {
		check(this.commands.command("FLUSHALL"));
		String marker = Long.toString(++this.markers);
		check(this.commands.command("PUBLISH", MARKER_CHANNEL, marker));
		messagesUntil(marker);
	}

	/**
	 * Return the server's clock in microseconds.
	 */
	long micros() {
		return micros(this.commands.command("TIME"));
	}

	/**
	 * Make a call and watch it.
	 * @param call the command and its arguments ({@code EVALSHA ...} for a script)
	 * @param keys the keys to dump after it
	 */
	Observation call(List<String> call, List<String> keys) {
		List<String> dump = new ArrayList<>(List.of("EVALSHA", this.dumpSha, Integer.toString(keys.size())));
		dump.addAll(keys);
		dump.add("keys");
		String called = Long.toString(++this.markers);
		String dumped = Long.toString(++this.markers);
		List<@Nullable Object> replies = this.commands.pipeline(List.of(List.of("TIME"), call, List.of("TIME"),
				List.of("PUBLISH", MARKER_CHANNEL, called), dump, List.of("PUBLISH", MARKER_CHANNEL, dumped)));
		List<String> messages = messagesUntil(called);
		List<String> dumpMessages = messagesUntil(dumped);
		Dump states = dump(replies.get(4));
		return new Observation(micros(replies.get(0)), replies.get(1), micros(replies.get(2)), states.micros(),
				states.keys(), states.others(), messages, dumpMessages);
	}

	/**
	 * Read the messages until a marker, as {@code channel message}.
	 */
	private List<String> messagesUntil(String marker) {
		List<String> messages = new ArrayList<>();
		while (true) {
			List<?> message = (List<?>) next();
			if (message.get(1).equals(MARKER_CHANNEL) && message.get(2).equals(marker)) {
				return messages;
			}
			messages.add(message.get(1) + " " + message.get(2));
		}
	}

	/**
	 * Dump every key.
	 */
	Dump dumpAll() {
		Dump dump = dump(this.commands.command("EVALSHA", this.dumpSha, "0", "all"));
		// KEYS skips expired keys, so the dump expires none, and publishes nothing: read
		// up to a marker anyway, so that no message is left for the next run.
		String marker = Long.toString(++this.markers);
		check(this.commands.command("PUBLISH", MARKER_CHANNEL, marker));
		messagesUntil(marker);
		return dump;
	}

	private static Dump dump(@Nullable Object reply) {
		List<?> items = (List<?>) check(reply);
		long micros = Long.parseLong((String) items.get(0)) * 1_000_000 + Long.parseLong((String) items.get(1));
		Map<String, @Nullable KeyState> keys = new LinkedHashMap<>();
		Map<String, KeyState> others = new LinkedHashMap<>();
		for (Object element : items.subList(2, items.size())) {
			List<?> item = (List<?>) element;
			if (item.get(1).equals("none")) {
				keys.put((String) item.get(0), null);
				continue;
			}
			List<String> contents = new ArrayList<>();
			((List<?>) item.get(3)).forEach((value) -> contents.add((String) value));
			KeyState state = new KeyState((String) item.get(1), (Long) item.get(2), contents,
					!item.get(4).equals("hashtable"));
			if (item.size() > 5) {
				others.put((String) item.get(0), state);
			}
			else {
				keys.put((String) item.get(0), state);
			}
		}
		return new Dump(micros, keys, others);
	}

	private @Nullable Object next() {
		try {
			return this.subscriber.awaitNext();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static long micros(@Nullable Object time) {
		List<?> clock = (List<?>) check(time);
		return Long.parseLong((String) clock.get(0)) * 1_000_000 + Long.parseLong((String) clock.get(1));
	}

	private static @Nullable Object check(@Nullable Object reply) {
		if (reply instanceof RedisCommandException error) {
			throw error;
		}
		return reply;
	}

	@Override
	public void close() {
		this.subscriber.close();
		this.commands.close();
	}

	/**
	 * Keys as a dump read them.
	 *
	 * @param micros the server's clock when the dump ran
	 * @param keys each key's state, {@code null} for an absent one
	 * @param others every other key the server had, not expired
	 */
	record Dump(long micros, Map<String, @Nullable KeyState> keys, Map<String, KeyState> others) {
	}

	/**
	 * What one call did on the real server.
	 *
	 * @param before the server's clock just before it, in µs
	 * @param reply its reply ({@link RedisCommandException} for an error)
	 * @param after the server's clock just after it, in µs
	 * @param dumpMicros the clock when the keys were dumped after it
	 * @param keys the keys it names, as left
	 * @param others every other key the server had after it, not expired; {@code null}
	 * for an observation made up of the named keys alone (a test's)
	 * @param messages what it published, as {@code channel message}
	 * @param dumpMessages what the dump published: the {@code expired} events of the keys
	 * it found expired
	 */
	record Observation(long before, @Nullable Object reply, long after, long dumpMicros,
			Map<String, @Nullable KeyState> keys, @Nullable Map<String, KeyState> others, List<String> messages,
			List<String> dumpMessages) {
	}

}
