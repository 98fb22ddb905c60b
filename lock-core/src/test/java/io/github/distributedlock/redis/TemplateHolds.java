package io.github.distributedlock.redis;

import java.lang.reflect.Field;
import java.util.Map;

import io.github.distributedlock.redis.driver.HoldRegistry;

/**
 * The hold registry inside a blocking template, read by reflection: only tests look
 * inside it, so the engine offers no way to it.
 */
final class TemplateHolds {

	private TemplateHolds() {
	}

	static HoldRegistry registry(RedisLockTemplate template) {
		return (HoldRegistry) field(RedisLockTemplate.class, "registry", template);
	}

	/** Return how many owner and lock pairs the template's registry counts as held. */
	static int count(RedisLockTemplate template) {
		return ((Map<?, ?>) field(HoldRegistry.class, "holds", registry(template))).size();
	}

	private static Object field(Class<?> type, String name, Object target) {
		try {
			Field field = type.getDeclaredField(name);
			field.setAccessible(true);
			return field.get(target);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("No field " + name + " in " + type.getSimpleName(), ex);
		}
	}

}
