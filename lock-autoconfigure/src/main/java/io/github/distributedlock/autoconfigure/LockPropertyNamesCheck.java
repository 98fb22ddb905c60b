package io.github.distributedlock.autoconfigure;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginLookup;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Warns at startup, once per key, of each key under {@code distributed-lock} that no
 * property has: a misspelled key, with the nearest property's name, or a removed one,
 * with what the metadata says replaced it. Without it, such a key is ignored without a
 * word.
 * <p>
 * A key is a property's when binding {@link DistributedLockProperties} reads it (so every
 * relaxed form, and any role name under {@code leader.roles}, is one) or when the
 * configuration metadata on the class path names it (the properties of other modules,
 * such as {@code distributed-lock.in-memory}). Environment variables are matched as Boot
 * binds them: upper case, with underscores for dots and dashes.
 */
final class LockPropertyNamesCheck implements BeanFactoryPostProcessor, EnvironmentAware, BeanClassLoaderAware {

	private static final Log logger = LogFactory.getLog(LockPropertyNamesCheck.class);

	private static final String PREFIX = "distributed-lock";

	private static final ConfigurationPropertyName PREFIX_NAME = ConfigurationPropertyName.of(PREFIX);

	private static final String LOOSE_PREFIX = loose(PREFIX);

	private static final String VARIABLE_PREFIX = "DISTRIBUTEDLOCK_";

	private static final String DASHED_VARIABLE_PREFIX = "DISTRIBUTED_LOCK_";

	private @Nullable Environment environment;

	private @Nullable ClassLoader classLoader;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		if (this.environment != null) {
			check(this.environment, LockPropertyMetadata.read(this.classLoader)).forEach(logger::warn);
		}
	}

	/**
	 * Return a warning for each key under {@code distributed-lock} in the environment
	 * that no property has.
	 * @param environment the environment
	 * @param metadata the properties that the metadata names
	 * @return the warnings, one per key
	 */
	static List<String> check(Environment environment, LockPropertyMetadata metadata) {
		Names known = Names.of(environment, metadata);
		Map<String, String> warnings = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source.getUnderlyingSource() instanceof EnumerablePropertySource<?> enumerable) {
				boolean variables = enumerable instanceof SystemEnvironmentPropertySource;
				for (String key : enumerable.getPropertyNames()) {
					if (!warnings.containsKey(key)) {
						String warning = variables ? known.checkVariable(key) : known.checkProperty(key);
						if (warning != null) {
							warnings.put(key, "Property '" + key + "' (" + where(enumerable, key) + ") " + warning);
						}
					}
				}
			}
		}
		return new ArrayList<>(warnings.values());
	}

	private static String where(PropertySource<?> source, String key) {
		Origin origin = OriginLookup.getOrigin(source, key);
		return (origin != null) ? "from " + origin : "in property source '" + source.getName() + "'";
	}

	/**
	 * A name stripped of case and separators, as an environment variable is matched.
	 */
	private static String loose(String name) {
		StringBuilder loose = new StringBuilder(name.length());
		for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) {
			if (Character.isLetterOrDigit(c)) {
				loose.append(c);
			}
		}
		return loose.toString();
	}

	/**
	 * The names known to be properties, and those to suggest for a key that is not one.
	 */
	private record Names(Set<ConfigurationPropertyName> known, Set<String> looseKnown, List<String> looseMaps,
			Map<ConfigurationPropertyName, String> removed, Map<String, String> looseRemoved,
			List<String> suggestions) {

		static Names of(Environment environment, LockPropertyMetadata metadata) {
			NameRecorder recorder = new NameRecorder();
			try {
				Binder.get(environment).bind(PREFIX, Bindable.of(DistributedLockProperties.class), recorder);
			}
			catch (RuntimeException ex) {
				// The application's own binding reports it; check what was read so far.
			}
			Set<ConfigurationPropertyName> known = new HashSet<>(recorder.bound);
			Set<String> suggestions = new LinkedHashSet<>(metadata.properties());
			for (String property : metadata.properties()) {
				known.add(ConfigurationPropertyName.of(property));
			}
			for (ConfigurationPropertyName tried : recorder.tried) {
				if (recorder.tried.stream().noneMatch(tried::isAncestorOf)) {
					suggestions.add(tried.toString());
				}
			}
			Map<ConfigurationPropertyName, String> removed = new LinkedHashMap<>();
			Map<String, String> looseRemoved = new LinkedHashMap<>();
			metadata.removed().forEach((name, reason) -> {
				removed.put(ConfigurationPropertyName.of(name), reason);
				looseRemoved.put(loose(name), reason);
			});
			Set<String> looseKnown = new HashSet<>();
			known.forEach((name) -> looseKnown.add(loose(name.toString())));
			List<String> looseMaps = metadata.maps().stream().map(LockPropertyNamesCheck::loose).toList();
			return new Names(known, looseKnown, looseMaps, removed, looseRemoved, List.copyOf(suggestions));
		}

		@Nullable String checkProperty(String key) {
			ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
			if (!PREFIX_NAME.isAncestorOf(name) || this.known.contains(name)) {
				return null;
			}
			String reason = this.removed.get(name);
			return (reason != null) ? removed(reason) : unknown(key);
		}

		@Nullable String checkVariable(String key) {
			String upper = key.toUpperCase(Locale.ROOT);
			// Boot's documented form drops the dash of the prefix; it binds the other
			// form too, but not for the entries of a map.
			boolean dashed = upper.startsWith(DASHED_VARIABLE_PREFIX);
			if (!dashed && !upper.startsWith(VARIABLE_PREFIX)) {
				return null;
			}
			String loose = loose(key);
			if (this.looseKnown.contains(loose)) {
				return null;
			}
			String reason = this.looseRemoved.get(loose);
			if (reason != null) {
				return removed(reason);
			}
			if (dashed && this.looseMaps.stream().anyMatch(loose::startsWith)) {
				return "is ignored: the entries of a map bind from environment variables only where the prefix "
						+ "has no underscore inside. Did you mean '" + VARIABLE_PREFIX
						+ upper.substring(DASHED_VARIABLE_PREFIX.length()) + "'?";
			}
			return unknown(key);
		}

		private static String removed(String reason) {
			return "was removed and is ignored: " + reason;
		}

		private String unknown(String key) {
			String warning = "is not a distributed-lock property and is ignored.";
			String nearest = nearest(key);
			return (nearest != null) ? warning + " Did you mean '" + nearest + "'?" : warning;
		}

		/**
		 * Return the property whose name is nearest the key, if it is near enough to be a
		 * misspelling of it: at most half the length of the key's part after the prefix
		 * apart, by edit distance, ignoring case and separators.
		 */
		private @Nullable String nearest(String key) {
			String loose = loose(key);
			int limit = Math.max(2, (loose.length() - LOOSE_PREFIX.length()) / 2);
			String nearest = null;
			int best = Integer.MAX_VALUE;
			for (String candidate : this.suggestions) {
				int distance = EditDistance.between(loose, loose(candidate));
				if (distance < best) {
					best = distance;
					nearest = candidate;
				}
			}
			return (best <= limit) ? nearest : null;
		}

	}

	/**
	 * Records the names that binding tried and those it read a value for (or failed to
	 * convert: the application's own binding reports that), and binds nothing.
	 */
	private static final class NameRecorder implements BindHandler {

		private final Set<ConfigurationPropertyName> tried = new LinkedHashSet<>();

		private final Set<ConfigurationPropertyName> bound = new HashSet<>();

		@Override
		public <T> Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target, BindContext context) {
			this.tried.add(name);
			return target;
		}

		@Override
		public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
				Object result) {
			this.bound.add(name);
			return result;
		}

		@Override
		public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
				Exception error) {
			this.bound.add(name);
			return null;
		}

	}

}
