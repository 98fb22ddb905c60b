package io.github.distributedlock.redis.driver;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscribe the port refuses (it throws, as a destroyed listener container does): the
 * line counts as subscribed, and the refusal clears no subscription that another waiter
 * made after it.
 */
class RefusedSubscribeTests {

	/**
	 * The first subscribe is refused; before its refusal is told to the line, a second
	 * waiter's subscribe succeeds (here, from inside the refused one, which leaves the
	 * line as a waiter on another thread would). The line keeps that subscription, and
	 * closing the lines cancels it.
	 */
	@Test
	void aRefusedSubscribeKeepsTheSubscriptionAnotherWaiterMadeMeanwhile() {
		Scheduler scheduler = Schedulers.newSingle("refused");
		LockSpec spec = spec();
		List<Boolean> cancelled = new ArrayList<>();
		LocalLines[] lines = new LocalLines[1];
		LockPort port = new ForwardingPort(new SchedulerPort(scheduler)) {

			private int calls;

			@Override
			public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
				throw new UnsupportedOperationException("No Redis here");
			}

			@Override
			public Cancellable listen(List<String> channels, Listener listener) {
				if (++this.calls == 1) {
					lines[0].join(spec);
					throw new IllegalStateException("the listener container is destroyed");
				}
				int index = cancelled.size();
				cancelled.add(false);
				listener.subscribed();
				return () -> cancelled.set(index, true);
			}

		};
		lines[0] = TestLines.of(port, 0);
		LocalLine line = lines[0].join(spec);
		assertThat(line.isSubscribed()).as("the line, after the refusal").isTrue();
		assertThat(cancelled).as("subscriptions made: the second waiter's").hasSize(1);
		assertThat(line.hasSubscription()).as("the second waiter's subscription, kept by the line").isTrue();
		lines[0].close();
		assertThat(cancelled).as("the subscription, once the lines closed").containsExactly(true);
		scheduler.dispose();
	}

	private static LockSpec spec() {
		String lockKey = "p:{lines:refused}";
		WaitMode waitMode = new WaitMode(WaitStrategy.PUBSUB, List.of(lockKey + ":released"), 100_000_000);
		return new LockSpec(LockName.of("lines", "refused"), lockKey, lockKey + ":released", LockKind.EXCLUSIVE, 0,
				lockKey, 30_000, 0, false, false, 0, 5_000, waitMode, true, null);
	}

}
