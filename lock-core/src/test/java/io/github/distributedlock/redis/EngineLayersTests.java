package io.github.distributedlock.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's layers, and the uses that run back up them. Control flows one way: each
 * package of the engine is one layer, and its types use the types of their own layer and
 * those below. A use is counted when a type's source names another type of the engine
 * (imports, comments and string literals left out), once per pair of files.
 * <ol start="0">
 * <li>{@code redis.core}: the decisions, with no I/O: what a request resolves to, a
 * grant, the clock, the deadline, messages, the line's hearing, the steps of a wait, what
 * an attempt carries and what a reply means</li>
 * <li>{@code redis.script}: the Lua files, their arguments and keys, the lock kinds that
 * build the calls, the replies</li>
 * <li>{@code redis.server}: the adapters to Spring Data Redis (the script runner, the
 * server's features, listeners, the count of its replicas) and resolving requests</li>
 * <li>{@code redis.driver}: the driver of one acquisition, over a port, with its local
 * lines</li>
 * <li>{@code redis.blocking} and {@code redis.reactive}: the blocking engine and the
 * reactive template's port, handles and holds, which don't use each other</li>
 * <li>{@code redis}: the templates</li>
 * </ol>
 */
class EngineLayersTests {

	private static final Path ENGINE = Path.of("src/main/java/io/github/distributedlock/redis");

	private static final Map<String, Integer> LAYERS = Map.of("core", 0, "script", 1, "server", 2, "driver", 3,
			"blocking", 4, "reactive", 4, "", 5);

	/**
	 * The uses that run up, each with its reason. A lock's kind is part of what a request
	 * resolves to, and the kind builds its script calls.
	 */
	private static final List<String> UPWARD = List.of("core.LockSpec -> script.LockKind");

	@Test
	void everyPackageOfTheEngineIsALayer() throws IOException {
		assertThat(sources().keySet()).as("types outside the layers' packages")
			.allSatisfy((type) -> assertThat(LAYERS).containsKey(packageOf(type)));
		assertThat(LAYERS.keySet()).as("layers without types")
			.allSatisfy((layer) -> assertThat(sources().keySet()).anyMatch((type) -> packageOf(type).equals(layer)));
	}

	@Test
	void onlyTheListedUsesRunBackUpTheLayers() throws IOException {
		assertThat(uses((type, used) -> layer(used) > layer(type))).containsExactlyInAnyOrderElementsOf(UPWARD);
	}

	@Test
	void theDriversDontUseEachOther() throws IOException {
		assertThat(
				uses((type, used) -> layer(type) == 3 && layer(used) == 3 && !packageOf(type).equals(packageOf(used))))
			.isEmpty();
	}

	@Test
	void theCoreDoesNoIo() throws IOException {
		Pattern io = Pattern.compile(
				"import (static )?(org\\.springframework\\.data\\.redis|reactor\\.|java\\.util\\.concurrent\\.locks|io\\.lettuce)");
		sources().forEach((type, source) -> {
			if (packageOf(type).equals("core")) {
				assertThat(io.matcher(source).find()).as(type).isFalse();
			}
		});
	}

	/**
	 * Only the adapters ({@code server}) and the templates' sides talk to Redis: below
	 * them, the simulation runs every line through its own port (docs/design/driver.md),
	 * so no line there may need a connection, a client or a listener container. Spring
	 * Data Redis's {@code ReturnType}, a plain enum, names what a script returns.
	 */
	@Test
	void onlyTheAdaptersAndTheTemplatesTalkToRedis() throws IOException {
		Pattern redis = Pattern
			.compile("import (static )?(org\\.springframework\\.data\\.redis\\.(?!connection\\.ReturnType;)"
					+ "|reactor\\.|io\\.lettuce|redis\\.clients)");
		sources().forEach((type, source) -> {
			if (layer(type) <= 3 && !packageOf(type).equals("server")) {
				assertThat(redis.matcher(source).find()).as(type).isFalse();
			}
		});
	}

	private static List<String> uses(UseFilter filter) throws IOException {
		Map<String, String> sources = sources();
		List<String> uses = new ArrayList<>();
		sources.forEach((type, source) -> {
			String code = code(source);
			for (String used : sources.keySet()) {
				if (!used.equals(type) && filter.counts(type, used)
						&& Pattern.compile("\\b" + simpleName(used) + "\\b").matcher(code).find()) {
					uses.add(type + " -> " + used);
				}
			}
		});
		return uses;
	}

	private static int layer(String type) {
		return LAYERS.get(packageOf(type));
	}

	private static String packageOf(String type) {
		int dot = type.lastIndexOf('.');
		return (dot < 0) ? "" : type.substring(0, dot);
	}

	private static String simpleName(String type) {
		return type.substring(type.lastIndexOf('.') + 1);
	}

	/**
	 * Every type of the engine, named by its package below {@code redis} and its simple
	 * name ({@code core.Waiting}, or {@code RedisLockTemplate} for the templates).
	 */
	private static Map<String, String> sources() throws IOException {
		Map<String, String> sources = new LinkedHashMap<>();
		try (Stream<Path> files = Files.walk(ENGINE)) {
			for (Path file : files.sorted().toList()) {
				String name = file.getFileName().toString();
				if (name.endsWith(".java") && !name.equals("package-info.java")) {
					String type = ENGINE.relativize(file).toString().replace('/', '.');
					sources.put(type.substring(0, type.length() - ".java".length()), Files.readString(file));
				}
			}
		}
		return sources;
	}

	private static String code(String source) {
		return source.replaceAll("(?s)/\\*.*?\\*/", "")
			.replaceAll("//[^\\n]*", "")
			.replaceAll("\"(?:\\\\.|[^\"\\\\])*\"", "\"\"")
			.replaceAll("(?m)^import (?!static )[^\\n]*\\n", "");
	}

	@FunctionalInterface
	private interface UseFilter {

		boolean counts(String type, String used);

	}

}
