package io.github.distributedlock.redis.driver;

import java.util.List;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.NanoClock;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * All the driver needs from the world: read a clock, draw ids, set a timer, run a script,
 * and listen to channels. Each template, and the simulation, gives it one of its own.
 * <p>
 * Implementations are thread-safe. Every callback may come on any thread, at most once
 * per call (a subscription's messages excepted). A port never answers while its caller is
 * inside the call: a port that answers at once answers after returning.
 */
public interface LockPort extends NanoClock {

	/**
	 * Return the ids of the holds and hand-off requests acquisitions make: unique among
	 * every process using the same Redis.
	 */
	UniqueIds ids();

	/**
	 * Run the task once, after the given delay, unless cancelled first.
	 */
	Cancellable schedule(Runnable task, long delayNanos);

	/**
	 * Run a script once.
	 * @param name the lock a failure names
	 * @param operation what the script does, for a failure's message
	 * @param reply granted the script's reply, or failed with a {@code LockException}
	 * naming the lock if none came within the command timeout or Redis refused it
	 */
	void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply);

	/**
	 * Listen to the given channels until cancelled.
	 * @param listener told once when every channel is subscribed, of every message after
	 * that, and if the subscription is lost
	 */
	Cancellable listen(List<String> channels, Listener listener);

	/**
	 * Something that can be cancelled; cancelling twice, or after the end, does nothing.
	 */
	@FunctionalInterface
	interface Cancellable {

		void cancel();

	}

	/**
	 * Told what a subscription hears.
	 */
	interface Listener {

		/**
		 * Every channel is subscribed; called again after a reconnect subscribes again.
		 */
		void subscribed();

		void message(byte[] body);

		/**
		 * The subscription failed, or could not be made: nothing more will be heard.
		 */
		void lost(Throwable error);

	}

}
