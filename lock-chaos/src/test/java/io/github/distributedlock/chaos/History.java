package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The events of every worker of one run in the order they arrived, plus when workers were
 * killed. Thread-safe: worker output readers append while the test waits for events.
 */
final class History {

	private final List<Event> events = new ArrayList<>();

	private final Map<String, Long> deaths = new HashMap<>();

	synchronized void add(Event event) {
		this.events.add(event);
		notifyAll();
	}

	/**
	 * Record that a worker died (kill -9): it holds nothing from then on, whatever it
	 * logged.
	 */
	synchronized void died(String worker, long nanos) {
		this.deaths.put(worker, nanos);
	}

	synchronized int size() {
		return this.events.size();
	}

	synchronized List<Event> events() {
		return List.copyOf(this.events);
	}

	/**
	 * Wait for an event, at or after index {@code from}, that matches.
	 * @return the event, or {@code null} if none came within the timeout
	 */
	synchronized @Nullable Event await(int from, Predicate<Event> condition, Duration timeout)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		int next = from;
		while (true) {
			for (; next < this.events.size(); next++) {
				Event event = this.events.get(next);
				if (condition.test(event)) {
					return event;
				}
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return null;
			}
			TimeUnit.NANOSECONDS.timedWait(this, left);
		}
	}

	synchronized long count(Predicate<Event> condition) {
		return this.events.stream().filter(condition).count();
	}

	/**
	 * Return every successful acquisition, each with when its holder let go.
	 */
	synchronized List<Hold> holds() {
		Map<String, List<Event>> byHold = new LinkedHashMap<>();
		for (Event event : this.events) {
			byHold.computeIfAbsent(event.holdId(), (id) -> new ArrayList<>()).add(event);
		}
		List<Hold> holds = new ArrayList<>();
		for (List<Event> attempt : byHold.values()) {
			Hold hold = hold(attempt);
			if (hold != null) {
				holds.add(hold);
			}
		}
		return holds;
	}

	private @Nullable Hold hold(List<Event> attempt) {
		Event invoke = null;
		Event ok = null;
		Event release = null;
		String outcome = null;
		for (Event event : attempt) {
			if (event.is(Event.INVOKE, Event.ACQUIRE)) {
				invoke = event;
			}
			else if (event.is(Event.OK, Event.ACQUIRE)) {
				ok = event;
			}
			else if (event.is(Event.INVOKE, Event.RELEASE)) {
				release = event;
			}
			else if (event.op().equals(Event.RELEASE)) {
				outcome = event.type();
			}
		}
		if (invoke == null || ok == null) {
			return null;
		}
		long end = Long.MAX_VALUE;
		if (release != null) {
			end = release.nanos();
		}
		Long death = this.deaths.get(ok.worker());
		if (death != null && death < end) {
			end = death;
		}
		String owner = null;
		boolean renewed = false;
		for (String word : invoke.detail().split(" ")) {
			if (word.startsWith("owner=")) {
				owner = word.substring("owner=".length());
			}
			renewed |= word.equals("renew");
		}
		return new Hold(ok.holdId(), ok.worker(), ok.key(), ok.token(), invoke.nanos(), ok.nanos(), leaseNanos(invoke),
				end, outcome, owner, renewed);
	}

	private static long leaseNanos(Event invoke) {
		String detail = invoke.detail();
		if (!detail.startsWith("lease=")) {
			throw new IllegalStateException("An acquire must log its lease: " + invoke.format());
		}
		String lease = detail.substring("lease=".length()).split(" ")[0];
		return TimeUnit.MILLISECONDS.toNanos(Long.parseLong(lease));
	}

}
