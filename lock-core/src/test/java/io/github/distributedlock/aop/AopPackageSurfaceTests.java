package io.github.distributedlock.aop;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public types of the aspect package: what users implement, call or catch, and the
 * one configuration that wires the rest, which stays package-private.
 */
class AopPackageSurfaceTests {

	@Test
	void shouldMakePublicOnlyTheTypesUsersSeeAndTheConfiguration() throws Exception {
		assertThat(publicTopLevelTypes()).containsExactlyInAnyOrder("DefaultLockTimeoutHandler",
				"DistributedLockAspectConfiguration", "LockAnnotationException", "LockKeyExpression", "LockKeyResolver",
				"LockKeyRoot", "LockTimeoutContext", "LockTimeoutHandler", "LockTimeoutListener",
				"SpelLockKeyResolver");
	}

	@Test
	void shouldKeepTheAspectsMachineryPackagePrivate() {
		for (Class<?> type : List.of(DistributedLockAdvisor.class, DistributedLockInterceptor.class,
				LockAnnotationValidator.class, LockedMethods.class)) {
			assertThat(Modifier.isPublic(type.getModifiers())).as(type.getSimpleName() + " is public").isFalse();
		}
	}

	private static List<String> publicTopLevelTypes() throws IOException, ClassNotFoundException {
		String packagePath = ClassUtils.convertClassNameToResourcePath(LockedMethods.class.getPackageName());
		// The main classes only: the tests share the package.
		String mainClasses = LockedMethods.class.getProtectionDomain().getCodeSource().getLocation().toString();
		Resource[] classFiles = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + packagePath + "/*.class");
		List<String> names = new ArrayList<>();
		for (Resource classFile : classFiles) {
			String name = classFile.getFilename();
			if (!classFile.getURL().toString().startsWith(mainClasses) || name == null || name.contains("$")
					|| name.equals("package-info.class")) {
				continue;
			}
			String simpleName = name.substring(0, name.length() - ".class".length());
			Class<?> type = Class.forName(LockedMethods.class.getPackageName() + "." + simpleName);
			if (Modifier.isPublic(type.getModifiers())) {
				names.add(simpleName);
			}
		}
		assertThat(names).as("public types found in " + packagePath).isNotEmpty();
		return names;
	}

}
