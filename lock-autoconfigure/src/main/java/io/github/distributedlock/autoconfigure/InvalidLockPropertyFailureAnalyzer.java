package io.github.distributedlock.autoconfigure;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Reports a {@code distributed-lock.*} property whose value the lock engine refuses, with
 * the value as written, where it was set, and what to set instead.
 */
class InvalidLockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockPropertyException> {

	private static final Map<String, String> MEANINGS = Map.of("distributed-lock.lease",
			"how long a lock stays taken if it is never released, such as 30s", "distributed-lock.wait-time",
			"how long to wait for a taken lock, such as 10s, or 0s to try once", "distributed-lock.polling.interval",
			"how often the POLLING wait strategy retries, such as 100ms", "distributed-lock.key-prefix",
			"the prefix of the locks' Redis keys, such as myapp-lock");

	private final @Nullable Environment environment;

	InvalidLockPropertyFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockPropertyException cause) {
		String property = cause.getProperty();
		ConfigurationProperty source = findSource(property);
		Object value = (source != null) ? source.getValue() : cause.getValue();
		StringBuilder description = new StringBuilder("Invalid value '").append(value)
			.append("' for configuration property '")
			.append(property)
			.append("'");
		if (source != null && source.getOrigin() != null) {
			description.append(" (originating from '").append(source.getOrigin()).append("')");
		}
		description.append(": it must be ").append(cause.getRequirement()).append('.');
		String meaning = MEANINGS.get(property);
		// Only a value that was set can be removed; a default can itself be what fails.
		String action = "Set " + property + " to a value that is " + cause.getRequirement()
				+ ((meaning != null) ? " (" + meaning + ")" : "")
				+ ((source != null) ? ", or remove it to use the default." : ".");
		return new FailureAnalysis(description.toString(), action, cause);
	}

	private @Nullable ConfigurationProperty findSource(String property) {
		if (this.environment == null) {
			return null;
		}
		ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			ConfigurationProperty found = source.getConfigurationProperty(name);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

}
