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
 * type of the {@code redis} package belongs to one layer, and uses the types of its own
 * layer and those below. A use is counted when a type's source names another type of the
 * package (comments and string literals left out), once per pair of files.
 * <ol start="0">
 * <li>values and decisions, with no I/O: what a request resolves to, a grant, the clock,
 * the deadline, messages, the line's hearing, and the decision cores
 * ({@link Acquisition}, {@link MultiAcquisition})</li>
 * <li>scripts: the Lua files, their arguments and keys, and the lock kinds that build the
 * calls</li>
 * <li>commands and the server: sending the calls, the server's features, listeners,
 * resolving requests</li>
 * <li>drivers: the blocking and the reactive wait loops, lines, handles and renewal</li>
 * <li>the templates</li>
 * </ol>
 */
class EngineLayersTests {

	private static final Path ENGINE = Path.of("src/main/java/io/github/distributedlock/redis");

	private static final List<String> LAYERS = List.of(
			"AcquireResult MultiAcquireResult AttemptOutcome Waiting FairTurn Grant LockSpec LockTarget LockTiming NanoClock Deadline LeaseEnd HolderSighting "
					+ "HandOffRequest ReleaseMessage WaitLine WaitMode Acquisition MultiAcquisition UniqueIds "
					+ "LockOwners RedisVersion HashSlots LockKeys",
			"LuaScript LuaLibrary LockScripts ScriptArgs ScriptKey ScriptCall ScriptTexts LockScriptsRuntimeHints "
					+ "LockKind ExclusiveKind ReadKind PermitKind FairKind",
			"ScriptRunner LockCommands ReactiveLockCommands RedisServerFeatures KeyspaceNotifications "
					+ "ReactiveKeyspaceCheck ReplicaWait ListenerContainerLifecycle LockListeners LockRequestResolver",
			"WaitLoop WaitQueue WaitQueues MultiWaitLoop MultiLocking FairWait LockAttempts LeaseWatchdog HoldRegistry "
					+ "OwnerHolds RedisLockHandle MultiLockHandle ReactiveDriver ReactiveAcquisition ReactiveWaitLine "
					+ "ReactiveWaitLines ReactiveRedisLockHandle ReactiveHoldContext ReactiveHolds ReactiveMultiAcquisition "
					+ "ReactiveMultiLocking ReactiveMultiLockHandle ReactiveFairAcquisition",
			"RedisLockTemplate RedisLockTemplateBuilder ReactiveRedisLockTemplate ReactiveRedisLockTemplateBuilder");

	/**
	 * The uses that run up, each with its reason. A lock's kind is part of what a request
	 * resolves to, and the kind builds its script calls.
	 */
	private static final List<String> UPWARD = List.of("LockSpec -> LockKind", "LockTarget -> LockKind");

	@Test
	void everyTypeOfTheEngineHasALayer() throws IOException {
		Map<String, Integer> layers = layers();
		assertThat(sources().keySet()).as("types without a layer in this test")
			.allSatisfy((type) -> assertThat(layers).containsKey(type));
		assertThat(layers.keySet()).as("layered types that no longer exist")
			.allSatisfy((type) -> assertThat(sources()).containsKey(type));
	}

	@Test
	void onlyTheListedUsesRunBackUpTheLayers() throws IOException {
		Map<String, Integer> layers = layers();
		Map<String, String> sources = sources();
		List<String> upward = new ArrayList<>();
		sources.forEach((type, source) -> {
			String code = code(source);
			for (String used : sources.keySet()) {
				if (!used.equals(type) && layers.getOrDefault(used, -1) > layers.getOrDefault(type, Integer.MAX_VALUE)
						&& Pattern.compile("\\b" + used + "\\b").matcher(code).find()) {
					upward.add(type + " -> " + used);
				}
			}
		});
		assertThat(upward).containsExactlyInAnyOrderElementsOf(UPWARD);
	}

	private static Map<String, Integer> layers() {
		Map<String, Integer> layers = new LinkedHashMap<>();
		for (int i = 0; i < LAYERS.size(); i++) {
			for (String type : LAYERS.get(i).split(" ")) {
				layers.put(type, i);
			}
		}
		return layers;
	}

	private static Map<String, String> sources() throws IOException {
		Map<String, String> sources = new LinkedHashMap<>();
		try (Stream<Path> files = Files.list(ENGINE)) {
			for (Path file : files.sorted().toList()) {
				String name = file.getFileName().toString();
				if (name.endsWith(".java") && !name.equals("package-info.java")) {
					sources.put(name.substring(0, name.length() - ".java".length()), Files.readString(file));
				}
			}
		}
		return sources;
	}

	private static String code(String source) {
		return source.replaceAll("(?s)/\\*.*?\\*/", "")
			.replaceAll("//[^\\n]*", "")
			.replaceAll("\"(?:\\\\.|[^\"\\\\])*\"", "\"\"");
	}

}
