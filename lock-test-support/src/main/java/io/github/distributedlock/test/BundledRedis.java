package io.github.distributedlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

import org.jspecify.annotations.Nullable;

/**
 * The {@code redis-server} 6.2 that the {@code com.github.codemonstur:embedded-redis}
 * artifact ships inside its jar, extracted from the test class path: the oldest Redis the
 * library supports, to run suites against besides the one on the {@code PATH}, and the
 * server every suite uses on a machine that has no {@code redis-server} installed.
 */
public final class BundledRedis {

	/**
	 * The resource holding the Linux x86-64 binary (Redis 6.2.11, despite its name).
	 */
	public static final String REDIS_6_2 = "redis-server-6.2.6-v5-linux-amd64";

	private static @Nullable Path extracted;

	private BundledRedis() {
	}

	/**
	 * Return the bundled Redis 6.2 binary, extracted once per JVM to a temporary file
	 * that is deleted on exit.
	 * @return the executable
	 * @throws IllegalStateException if the class path lacks it (add
	 * {@code com.github.codemonstur:embedded-redis} as a test dependency), or on another
	 * platform than Linux x86-64
	 */
	public static synchronized Path redis62() {
		Path binary = extracted;
		if (binary == null) {
			binary = extract(REDIS_6_2);
			extracted = binary;
		}
		return binary;
	}

	/**
	 * Return whether the bundled binary can run here: on Linux x86-64, with the
	 * {@code embedded-redis} jar on the class path.
	 * @return whether {@link #redis62()} can return a binary
	 */
	public static boolean runsHere() {
		return isLinuxX86() && BundledRedis.class.getClassLoader().getResource(REDIS_6_2) != null;
	}

	private static boolean isLinuxX86() {
		return "Linux".equals(System.getProperty("os.name")) && "amd64".equals(System.getProperty("os.arch"));
	}

	private static Path extract(String resource) {
		if (!isLinuxX86()) {
			throw new IllegalStateException("The bundled " + resource + " runs on Linux x86-64 only, not on "
					+ System.getProperty("os.name") + " " + System.getProperty("os.arch"));
		}
		try (InputStream in = BundledRedis.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException(resource + " is not on the class path: add "
						+ "com.github.codemonstur:embedded-redis as a test dependency");
			}
			Path target = Files.createTempFile("redis-server-6.2-", "");
			target.toFile().deleteOnExit();
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not extract " + resource, ex);
		}
	}

}
