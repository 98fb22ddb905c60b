package io.github.distributedlock.aop;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Lets key expressions read {@code #root} ({@link LockKeyRoot}) in a native image, where
 * SpEL finds its getters by reflection.
 */
class LockKeyRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(LockKeyRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
