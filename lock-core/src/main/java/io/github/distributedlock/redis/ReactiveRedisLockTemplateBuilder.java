package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockListener;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.listener.ReactiveRedisMessageListenerContainer;

/**
 * Builder for {@link ReactiveRedisLockTemplate}:
 * {@link ReactiveRedisLockTemplate#builder(ReactiveRedisConnectionFactory)}. Not
 * thread-safe.
 */
public final class ReactiveRedisLockTemplateBuilder {

	final ReactiveRedisConnectionFactory connectionFactory;

	@Nullable ReactiveRedisMessageListenerContainer listenerContainer;

	LockDefaults defaults = LockDefaults.STANDARD;

	String keyPrefix = "lock";

	Duration subscriptionLinger = Duration.ofSeconds(2);

	boolean watchdog = true;

	boolean handOff = true;

	Duration fairWaiterTimeout = Duration.ofSeconds(5);

	int database;

	boolean configureKeyspaceEvents;

	final List<LockListener> listeners = new ArrayList<>();

	ReactiveRedisLockTemplateBuilder(ReactiveRedisConnectionFactory connectionFactory) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
	}

	/**
	 * Use this listener container for wake-ups instead of creating one; its owner
	 * destroys it.
	 * @param listenerContainer the container
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder listenerContainer(ReactiveRedisMessageListenerContainer listenerContainer) {
		this.listenerContainer = Objects.requireNonNull(listenerContainer);
		return this;
	}

	/**
	 * Set the defaults for whatever a request leaves unset. A default wait strategy of
	 * keyspace events is checked on the first request that uses it, not here, as building
	 * the template does not talk to Redis.
	 * @param defaults the defaults
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder defaults(LockDefaults defaults) {
		this.defaults = Objects.requireNonNull(defaults, "defaults must not be null");
		return this;
	}

	/**
	 * Set the database index, used to name keyspace notification channels, as
	 * {@link RedisLockTemplateBuilder#database(int)} does.
	 * @param database the database index
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder database(int database) {
		this.database = database;
		return this;
	}

	/**
	 * Set whether the keyspace wait strategy may run {@code CONFIG SET
	 * notify-keyspace-events} when the server lacks the needed flags, as
	 * {@link RedisLockTemplateBuilder#configureKeyspaceEvents(boolean)} does.
	 * @param configure whether to configure keyspace notifications
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder configureKeyspaceEvents(boolean configure) {
		this.configureKeyspaceEvents = configure;
		return this;
	}

	/**
	 * Set the prefix of every key and channel, {@code lock} by default: the same as the
	 * blocking template's, for the two to exclude each other.
	 * @param keyPrefix the prefix, without braces
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder keyPrefix(String keyPrefix) {
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		return this;
	}

	/**
	 * Set how long a lock's subscription stays after its last waiter leaves.
	 * @param subscriptionLinger the linger
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder subscriptionLinger(Duration subscriptionLinger) {
		this.subscriptionLinger = Objects.requireNonNull(subscriptionLinger);
		return this;
	}

	/**
	 * Set whether locks requested without a lease are renewed while held, with the
	 * default lease. On by default.
	 * @param watchdog whether lease-less locks are renewed
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder watchdog(boolean watchdog) {
		this.watchdog = watchdog;
		return this;
	}

	/**
	 * Set how long a fair lock's waiter keeps its place in the queue without calling
	 * Redis, as {@link RedisLockTemplateBuilder#fairWaiterTimeout(Duration)} does. 5 s by
	 * default.
	 * @param fairWaiterTimeout the timeout, at least 30 ms
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder fairWaiterTimeout(Duration fairWaiterTimeout) {
		if (fairWaiterTimeout.toMillis() < 30) {
			throw new IllegalArgumentException(
					"fairWaiterTimeout must be at least 30 ms, but was " + fairWaiterTimeout);
		}
		this.fairWaiterTimeout = fairWaiterTimeout;
		return this;
	}

	/**
	 * Set whether waiters line up across processes for reservations, as
	 * {@link RedisLockTemplateBuilder#handOff(boolean)} does; use the same setting as the
	 * blocking templates on the same Redis.
	 * @param handOff whether waiters line up for reservations
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder handOff(boolean handOff) {
		this.handOff = handOff;
		return this;
	}

	/**
	 * Add a listener, for example for metrics: it hears of acquisitions, timeouts,
	 * releases and lost leases as from the blocking template, on Reactor's threads, where
	 * it must not block.
	 * @param listener the listener
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder listener(LockListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
		return this;
	}

	/**
	 * Build the template.
	 * @return the template
	 */
	public ReactiveRedisLockTemplate build() {
		return new ReactiveRedisLockTemplate(this);
	}

}
