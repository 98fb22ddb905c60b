package io.github.distributedlock.inmemory;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockTemplate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of an {@link InMemoryLockTemplate}
 * when {@code distributed-lock.in-memory=true} (see {@link AutoConfigureInMemoryLocks}).
 * It runs before the engine's auto-configuration, whose Redis template then backs off, so
 * the context starts without Redis; {@code @DistributedLock} methods lock in memory.
 */
@AutoConfiguration(beforeName = "io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration")
@ConditionalOnBooleanProperty(InMemoryLockAutoConfiguration.PROPERTY)
public final class InMemoryLockAutoConfiguration {

	/**
	 * The property that switches the in-memory locks on.
	 */
	public static final String PROPERTY = "distributed-lock.in-memory";

	@Bean
	@ConditionalOnMissingBean(LockTemplate.class)
	InMemoryLockTemplate lockTemplate(Environment environment, ObjectProvider<LockListener> listeners) {
		InMemoryLockTemplate.Builder builder = InMemoryLockTemplate.builder().defaults(defaults(environment));
		listeners.orderedStream().forEach(builder::listener);
		return builder.build();
	}

	private static LockDefaults defaults(Environment environment) {
		Binder binder = Binder.get(environment);
		LockDefaults defaults = LockDefaults.STANDARD;
		defaults = binder.bind("distributed-lock.lease", java.time.Duration.class)
			.map(defaults::withLease)
			.orElse(defaults);
		defaults = binder.bind("distributed-lock.wait-time", java.time.Duration.class)
			.map(defaults::withWaitTime)
			.orElse(defaults);
		defaults = binder.bind("distributed-lock.reentrant", Boolean.class)
			.map(defaults::withReentrant)
			.orElse(defaults);
		return binder.bind("distributed-lock.progress-aware-timeout", Boolean.class)
			.map(defaults::withProgressAwareTimeout)
			.orElse(defaults);
	}

}
