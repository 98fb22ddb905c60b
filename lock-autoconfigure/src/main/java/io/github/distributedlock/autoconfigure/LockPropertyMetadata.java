package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * The {@code distributed-lock.*} properties that the configuration metadata on the class
 * path names: those that exist, and those removed, with the reason the metadata gives.
 * Every module that reads such a property ships metadata for it (this one generated from
 * {@link DistributedLockProperties}), so this list is never written by hand.
 *
 * @param properties the names of the properties that exist
 * @param maps the names of those whose values are maps, such as
 * {@code distributed-lock.leader.roles}
 * @param removed the reason of each removed property, by name
 */
record LockPropertyMetadata(List<String> properties, List<String> maps, Map<String, String> removed) {

	private static final String LOCATION = "classpath*:META-INF/spring-configuration-metadata.json";

	private static final String PREFIX = "distributed-lock.";

	/**
	 * Read the metadata of every module on the class path.
	 * @param classLoader the class loader to find it with
	 * @return the properties it names
	 */
	static LockPropertyMetadata read(@Nullable ClassLoader classLoader) {
		Set<String> properties = new LinkedHashSet<>();
		Set<String> maps = new LinkedHashSet<>();
		Map<String, String> removed = new LinkedHashMap<>();
		try {
			for (Resource resource : new PathMatchingResourcePatternResolver(classLoader).getResources(LOCATION)) {
				String json;
				try (InputStream in = resource.getInputStream()) {
					json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
				}
				// Most modules' metadata says nothing of locks: skip parsing it.
				if (json.contains("\"" + PREFIX)) {
					collect(json, properties, maps, removed);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + LOCATION, ex);
		}
		return new LockPropertyMetadata(List.copyOf(properties), List.copyOf(maps), Map.copyOf(removed));
	}

	private static void collect(String json, Set<String> properties, Set<String> maps, Map<String, String> removed) {
		Object entries = JsonParserFactory.getJsonParser().parseMap(json).get("properties");
		if (!(entries instanceof List<?> list)) {
			return;
		}
		for (Object entry : list) {
			if (entry instanceof Map<?, ?> property && property.get("name") instanceof String name
					&& name.startsWith(PREFIX)) {
				if (property.get("deprecation") instanceof Map<?, ?> deprecation
						&& "error".equals(deprecation.get("level"))) {
					Object reason = deprecation.get("reason");
					removed.put(name, (reason != null) ? reason.toString() : "");
				}
				else {
					properties.add(name);
					if (property.get("type") instanceof String type && type.startsWith("java.util.Map<")) {
						maps.add(name);
					}
				}
			}
		}
	}

}
