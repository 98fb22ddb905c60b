package io.github.distributedlock.simulation;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Redis's pub/sub channels (not patterns): what {@code PUBLISH} and the keyspace
 * notifications publish. {@code PUBLISH} answers how many subscribers receive the
 * message, as Redis does, and puts one delivery per subscriber into a queue that the
 * simulation drains when it decides the message arrives: it may deliver late, out of turn
 * between subscribers, or never (a dropped connection). Messages to one subscriber keep
 * their order in the queue, as on one Redis connection.
 */
public final class PubSub {

	private final Map<String, List<Subscriber>> channels = new HashMap<>();

	private final Deque<Delivery> inFlight = new ArrayDeque<>();

	private int nextId;

	private java.util.function.@Nullable BiConsumer<String, String> published;

	/**
	 * Subscribe a new subscriber to channels.
	 * @param name what the subscriber is, for messages
	 * @param channels the channels
	 * @return the subscriber
	 */
	public Subscriber subscribe(String name, String... channels) {
		Subscriber subscriber = new Subscriber(++this.nextId, name);
		for (String channel : channels) {
			subscribe(subscriber, channel);
		}
		return subscriber;
	}

	/**
	 * Subscribe a subscriber to one more channel; nothing happens if it listens already.
	 * @param subscriber the subscriber
	 * @param channel the channel
	 */
	public void subscribe(Subscriber subscriber, String channel) {
		List<Subscriber> listeners = this.channels.computeIfAbsent(channel, (key) -> new ArrayList<>(2));
		if (!listeners.contains(subscriber)) {
			listeners.add(subscriber);
		}
	}

	/**
	 * Unsubscribe a subscriber from a channel.
	 * @param subscriber the subscriber
	 * @param channel the channel
	 */
	public void unsubscribe(Subscriber subscriber, String channel) {
		List<Subscriber> listeners = this.channels.get(channel);
		if (listeners != null && listeners.remove(subscriber) && listeners.isEmpty()) {
			this.channels.remove(channel);
		}
	}

	/**
	 * Unsubscribe a subscriber from every channel and drop what is in flight to it, as
	 * when its connection closes.
	 * @param subscriber the subscriber
	 */
	public void disconnect(Subscriber subscriber) {
		this.channels.values().forEach((listeners) -> listeners.remove(subscriber));
		this.channels.values().removeIf(List::isEmpty);
		this.inFlight.removeIf((delivery) -> delivery.subscriber().equals(subscriber));
	}

	/**
	 * Return whether a subscriber of this name listens to any channel.
	 * @param name what the subscriber is
	 * @return whether one listens
	 */
	public boolean listens(String name) {
		return this.channels.values()
			.stream()
			.anyMatch((listeners) -> listeners.stream().anyMatch((listener) -> listener.name().equals(name)));
	}

	/**
	 * Return how many messages are published but not yet delivered.
	 * @return the number in flight
	 */
	public int inFlight() {
		return this.inFlight.size();
	}

	/**
	 * Take the oldest message in flight.
	 * @return the delivery, or {@code null} if none is in flight
	 */
	public @Nullable Delivery poll() {
		return this.inFlight.poll();
	}

	/**
	 * Take every message in flight, oldest first.
	 * @return the deliveries
	 */
	public List<Delivery> drain() {
		List<Delivery> all = new ArrayList<>(this.inFlight);
		this.inFlight.clear();
		return all;
	}

	/**
	 * Drop the newest messages in flight until {@code size} are left.
	 */
	void truncate(int size) {
		while (this.inFlight.size() > size) {
			this.inFlight.removeLast();
		}
	}

	/**
	 * Hear of every message published from now on, to any channel, subscribed or not (a
	 * simulation's own count of what a script told).
	 * @param listener called with the channel and the message as each is published
	 */
	public void onPublish(java.util.function.BiConsumer<String, String> listener) {
		this.published = listener;
	}

	long publish(String channel, String message) {
		java.util.function.BiConsumer<String, String> listener = this.published;
		if (listener != null) {
			listener.accept(channel, message);
		}
		List<Subscriber> listeners = this.channels.get(channel);
		if (listeners == null) {
			return 0;
		}
		for (Subscriber subscriber : listeners) {
			this.inFlight.add(new Delivery(subscriber, channel, message));
		}
		return listeners.size();
	}

	/**
	 * One connection subscribed to channels.
	 *
	 * @param id its number, unique in this model
	 * @param name what it is, for messages
	 */
	public record Subscriber(int id, String name) {
	}

	/**
	 * A message on its way to a subscriber.
	 *
	 * @param subscriber the subscriber
	 * @param channel the channel it was published on
	 * @param message the message
	 */
	public record Delivery(Subscriber subscriber, String channel, String message) {
	}

}
