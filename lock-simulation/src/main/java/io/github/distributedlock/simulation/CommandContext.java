package io.github.distributedlock.simulation;

import java.util.LinkedHashMap;

import org.jspecify.annotations.Nullable;

/**
 * What a command runs against: the keyspace, the clock as the command must read it, and
 * the pub/sub channels. Inside a script, keys expire by the time the script started;
 * which time relative expiries and {@code PTTL} read depends on the {@link ExpiryRule}.
 * With keyspace notifications on, the commands publish the events of the {@code g}
 * (generic) and {@code x} (expired) classes on the keyspace channel
 * ({@code notify-keyspace-events Kgx}), each when the command runs, as Redis publishes
 * them: in order with the script's own {@code PUBLISH} calls.
 */
final class CommandContext {

	private final VirtualClock clock;

	private final PubSub pubSub;

	private final Keyspace keyspace = new Keyspace();

	private ExpiryRule expiryRule = ExpiryRule.REDIS_7_0;

	private boolean keyspaceEvents;

	private boolean inspecting;

	private boolean inScript;

	private long scriptStartMs;

	CommandContext(VirtualClock clock, PubSub pubSub) {
		this.clock = clock;
		this.pubSub = pubSub;
	}

	Keyspace keyspace() {
		return this.keyspace;
	}

	VirtualClock clock() {
		return this.clock;
	}

	void expiryRule(ExpiryRule rule) {
		this.expiryRule = rule;
	}

	ExpiryRule expiryRule() {
		return this.expiryRule;
	}

	/**
	 * Mark the start of a script: the time keys expire by is frozen until
	 * {@link #endScript()}.
	 */
	void startScript() {
		this.inScript = true;
		this.scriptStartMs = this.clock.millis();
	}

	void endScript() {
		this.inScript = false;
	}

	/**
	 * Return the time by which keys count as expired, in ms.
	 */
	long expiryNow() {
		return this.inScript ? this.scriptStartMs : this.clock.millis();
	}

	/**
	 * Return the time that relative expiry times and remaining times count from, in ms.
	 */
	long baseNow() {
		return (this.inScript && this.expiryRule == ExpiryRule.REDIS_7_2) ? this.scriptStartMs : this.clock.millis();
	}

	/**
	 * Publish keyspace notifications from now on, or stop.
	 */
	void keyspaceEvents(boolean on) {
		this.keyspaceEvents = on;
	}

	/**
	 * Look at the keys without touching them, or stop: an expired key is then absent but
	 * not deleted, so no {@code expired} event is published for a look that no client of
	 * the server took.
	 */
	void inspecting(boolean on) {
		this.inspecting = on;
	}

	/**
	 * Return a key's entry if it is there and not expired. An expired key found is
	 * deleted, with an {@code expired} event, as Redis's {@code expireIfNeeded} does.
	 */
	Keyspace.@Nullable Entry lookup(String key) {
		Keyspace.Entry entry = this.keyspace.peek(key);
		if (entry == null || !entry.isExpired(expiryNow())) {
			return entry;
		}
		if (!this.inspecting) {
			this.keyspace.delete(key);
			notify("expired", key);
		}
		return null;
	}

	/**
	 * Publish a keyspace event of a key, if notifications are on.
	 * @param event the event's name: {@code del}, {@code expire}, {@code expired}
	 */
	void notify(String event, String key) {
		if (this.keyspaceEvents) {
			this.pubSub.publish(keyspaceChannel(key), event);
		}
	}

	/**
	 * Return the keyspace channel of a key in database 0.
	 */
	static String keyspaceChannel(String key) {
		return "__keyspace@0__:" + key;
	}

	/**
	 * Return a key's string, or {@code null} if it is absent.
	 * @throws CommandError WRONGTYPE if it holds another type
	 */
	@Nullable String string(String key) {
		Keyspace.Entry entry = lookup(key);
		if (entry == null) {
			return null;
		}
		if (entry.value instanceof String text) {
			return text;
		}
		throw CommandError.wrongType();
	}

	/**
	 * Return a key's hash, or {@code null} if it is absent.
	 * @throws CommandError WRONGTYPE if it holds another type
	 */
	@SuppressWarnings("unchecked")
	@Nullable LinkedHashMap<String, String> hash(String key) {
		Keyspace.Entry entry = lookup(key);
		if (entry == null) {
			return null;
		}
		if (entry.value instanceof LinkedHashMap<?, ?> hash) {
			return (LinkedHashMap<String, String>) hash;
		}
		throw CommandError.wrongType();
	}

	/**
	 * Return a key's sorted set, or {@code null} if it is absent.
	 * @throws CommandError WRONGTYPE if it holds another type
	 */
	@Nullable SortedSetValue sortedSet(String key) {
		Keyspace.Entry entry = lookup(key);
		if (entry == null) {
			return null;
		}
		if (entry.value instanceof SortedSetValue set) {
			return set;
		}
		throw CommandError.wrongType();
	}

	/**
	 * Publish a message.
	 * @return how many subscribers receive it
	 */
	long publish(String channel, String message) {
		return this.pubSub.publish(channel, message);
	}

}
