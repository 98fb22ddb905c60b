package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderEvent;
import io.github.distributedlock.leader.OnGrantedEvent;
import io.github.distributedlock.leader.OnRevokedEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.context.ApplicationListener;

/**
 * Meters of leader election, per role: {@code distributed.lock.leader.changes} counts
 * grants and revocations (tag {@code change}, and {@code reason} for revocations),
 * {@code distributed.lock.leader.active} times the term in progress, and
 * {@code distributed.lock.leader.terms} records each ended term's length, so that its
 * total is the time this instance led.
 */
final class LeaderMetrics implements ApplicationListener<LeaderEvent> {

	private final MeterRegistry registry;

	private final Map<LeaderContext, LongTaskTimer.Sample> active = new ConcurrentHashMap<>();

	LeaderMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onApplicationEvent(LeaderEvent event) {
		String role = event.getRole();
		if (event instanceof OnGrantedEvent) {
			change(role, "granted", "none");
			this.active.put(event.getContext(),
					LongTaskTimer.builder("distributed.lock.leader.active")
						.description("Time this instance has led the role in its current term")
						.tag("role", role)
						.register(this.registry)
						.start());
		}
		else if (event instanceof OnRevokedEvent revoked) {
			String reason = revoked.getReason().name().toLowerCase();
			change(role, "revoked", reason);
			LongTaskTimer.Sample sample = this.active.remove(event.getContext());
			if (sample != null) {
				sample.stop();
			}
			Timer.builder("distributed.lock.leader.terms")
				.description("Length of the terms this instance led the role")
				.tag("role", role)
				.tag("reason", reason)
				.register(this.registry)
				.record(Duration.between(event.getContext().since(), Instant.now()));
		}
	}

	private void change(String role, String change, String reason) {
		Counter.builder("distributed.lock.leader.changes")
			.description("Grants and revocations of leadership of the role to this instance")
			.tag("role", role)
			.tag("change", change)
			.tag("reason", reason)
			.register(this.registry)
			.increment();
	}

}
