package io.github.distributedlock.redis.script;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The scripts' declarations of their keys and arguments, and the shared library, checked
 * without Redis.
 */
class LockScriptsTests {

	private static final Pattern KEY_USE = Pattern.compile("KEYS\\[(\\d+)\\]");

	private static final Pattern ARG_USE = Pattern.compile("ARGV\\[(\\d+)\\]");

	@Test
	void shouldDeclareEveryScriptResource() throws IOException {
		List<String> declared = LockScripts.ALL.stream().map(LuaScript::name).sorted().toList();
		assertThat(declared).containsExactlyElementsOf(scriptResources());
	}

	@Test
	void shouldNameInEachHeaderTheDeclaredKeysAndArguments() {
		List<String> drift = LockScripts.ALL.stream()
			.flatMap((script) -> ScriptDeclarations.drift(script, LuaScript.read(script.name())).stream())
			.toList();
		assertThat(drift).isEmpty();
	}

	@Test
	void shouldReportAHeaderThatDriftsFromTheDeclaration() {
		String swapped = "-- KEYS: lock\n-- ARGV: owner, hold, token, lease_ms\n";
		assertThat(ScriptDeclarations.drift(LockScripts.EXTEND, swapped))
			.containsExactly("extend.lua declares ARGV 'owner, hold, token, lease_ms' in its header, "
					+ "but the engine passes 'owner, token, hold, lease_ms'");
		String keys = "-- KEYS: lock,requests, channel , readers\n"
				+ "-- ARGV: owner, token, hold, hand_off, keep_ms, [withdrawn_request]\n";
		assertThat(ScriptDeclarations.drift(LockScripts.RELEASE, keys)).singleElement()
			.asString()
			.contains("KEYS 'lock, requests, channel, readers'")
			.contains("'lock, channel, requests, readers'");
		assertThat(ScriptDeclarations.drift(LockScripts.RENEW, "-- KEYS: (lock)...\n"))
			.containsExactly("renew.lua has 0 '-- ARGV:' lines, not one");
	}

	@Test
	void shouldRenderTheDeclarationsAsTheHeadersWriteThem() {
		assertThat(ScriptDeclarations.snakeCase("mayHaveIntent")).isEqualTo("may_have_intent");
		assertThat(ScriptDeclarations.args(ScriptArgs.Release.class))
			.isEqualTo("owner, token, hold, hand_off, keep_ms, [withdrawn_request]");
		assertThat(ScriptDeclarations.args(ScriptArgs.AcquireAll.class)).endsWith("request_ttl_ms, (lease_ms)...");
		assertThat(ScriptDeclarations.args(ScriptArgs.Renew.class)).isEqualTo("(owner, token, hold, lease_ms)...");
		assertThat(ScriptDeclarations.args(ScriptArgs.ReadHold.class)).isEmpty();
		assertThat(ScriptDeclarations.keys(LockScripts.ACQUIRE_ALL))
			.isEqualTo("(lock, fence, readers, requests, channel)...");
		assertThat(ScriptDeclarations.keys(LockScripts.ACQUIRE_FAIR))
			.isEqualTo("lock, fence, readers, queue, queue_heartbeats");
	}

	@Test
	void shouldPassTheArgumentsInTheOrderOfTheRecordComponents() {
		SoftAssertions.assertSoftly((softly) -> {
			for (LuaScript<?> script : LockScripts.ALL) {
				List<? extends Record> samples = ScriptDeclarations.samples(script.argsType().asSubclass(Record.class));
				softly.assertThat(samples).as(script.name()).isNotEmpty();
				for (Record args : samples) {
					softly.assertThat(((ScriptArgs) args).argv())
						.as("%s of %s", script.name(), args)
						.isEqualTo(ScriptDeclarations.argvByComponents(args));
				}
			}
		});
	}

	@Test
	void shouldPassTheWireValuesTheScriptsRead() {
		long fenceIdle = LockKeys.FENCE_IDLE_MILLIS;
		long ttl = HandOffRequest.VALIDITY_MILLIS;
		// The usual first attempt: the script reads the last six as their defaults.
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, -1, "", ttl, false, false, true, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "-1");
		// A waiter's attempt: its request, and the rest left off.
		assertThat(
				new ScriptArgs.Acquire("o", "h", 30000, 5000, "2000:r", ttl, false, false, true, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "5000", "2000:r");
		// Then only as far as the last one that is not at its default.
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, -1, "2000:r", 80, false, false, true, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "-1", "2000:r", "80");
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, -1, "", ttl, true, false, true, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "-1", "", "30000", "1");
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, -1, "", ttl, false, true, true, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "-1", "", "30000", "0", "1");
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, -1, "", ttl, false, true, false, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "-1", "", "30000", "0", "1", "0");
		// Whether the owner may take the lock again is read only for a re-entry.
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, -1, "", ttl, false, false, false, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "-1");
		assertThat(
				new ScriptArgs.Acquire("o", "h", 30000, 5000, "2000:r", ttl, false, false, false, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "5000", "2000:r");
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, 0, "2000:r", ttl, false, false, true, 60000, 1).argv())
			.containsExactly("o", "h", "30000", "0", "2000:r", "30000", "0", "0", "1", "60000");
		// Without a request, the script never reads its time to live.
		assertThat(new ScriptArgs.Acquire("o", "h", 30000, -1, "", 80, false, false, true, fenceIdle, 1).argv())
			.containsExactly("o", "h", "30000", "-1");
		// The usual release: the script reads hand_off '1' and keep_ms '0' as defaults.
		assertThat(new ScriptArgs.Release("o", 7, "h", true, 0, null).argv()).containsExactly("o", "7", "h");
		assertThat(new ScriptArgs.Release("o", 7, "h", false, 0, null).argv()).containsExactly("o", "7", "h", "0", "0");
		assertThat(new ScriptArgs.Release("o", 7, "h", true, 250, null).argv()).containsExactly("o", "7", "h", "1",
				"250");
		assertThat(new ScriptArgs.Release("", 0, "", false, 0, "2000:r").argv()).containsExactly("", "0", "", "0", "0",
				"2000:r");
		// A withdrawal sends every argument, defaults or not.
		assertThat(new ScriptArgs.Release("", 0, "", true, 0, "2000:r").argv()).containsExactly("", "0", "", "1", "0",
				"2000:r");
		assertThat(new ScriptArgs.AcquireAll("o", "h", false, 60000, "", 30000, List.of(100L, 200L)).argv())
			.containsExactly("o", "h", "0", "60000", "", "30000", "100", "200");
		assertThat(new ScriptArgs.Renew(List.of(new ScriptArgs.Renew.Renewal("a", 1, "ha", 100),
				new ScriptArgs.Renew.Renewal("b", 2, "hb", 200)))
			.argv()).containsExactly("a", "1", "ha", "100", "b", "2", "hb", "200");
	}

	@Test
	void shouldReadALeftOffFenceIdleTimeAsTheEnginesConstant() {
		// ScriptArgs.Acquire leaves fence_idle_ms off when it is this constant.
		String code = code(LuaScript.read("acquire.lua"));
		assertThat(code).containsOnlyOnce("ARGV[10]").contains("ARGV[10] or '" + LockKeys.FENCE_IDLE_MILLIS + "'");
	}

	@Test
	void shouldReadALeftOffRequestTimeToLiveAsTheEnginesConstant() {
		// ScriptArgs.Acquire leaves request_ttl_ms off when it is this constant.
		String code = code(LuaScript.read("acquire.lua"));
		assertThat(code).containsOnlyOnce("ARGV[6]").contains("ARGV[6] or '" + HandOffRequest.VALIDITY_MILLIS + "'");
	}

	@Test
	void shouldUseExactlyTheDeclaredKeysAndArguments() {
		for (LuaScript<?> script : LockScripts.ALL) {
			if (script.keysPerLock()) {
				continue;
			}
			String code = code(LuaScript.read(script.name()));
			assertThat(highest(KEY_USE, code)).as("highest KEYS index used by %s", script.name())
				.isEqualTo(script.keys().size());
			assertThat(highest(ARG_USE, code)).as("highest ARGV index used by %s", script.name())
				.isEqualTo(script.argsType().getRecordComponents().length);
		}
	}

	@Test
	void shouldRefuseACallWithOtherKeysOrAnotherScriptsArguments() {
		LockSpec spec = spec();
		assertThatIllegalArgumentException().isThrownBy(
				() -> LockScripts.HELD_MEMBER.callWithKeys(List.of("a", "b"), new ScriptArgs.HeldMember("owner", "")))
			.withMessageContaining("held-member.lua")
			.withMessageContaining("[members]");
		assertThatIllegalStateException()
			.isThrownBy(() -> LockScripts.RENEW.call(spec, new ScriptArgs.Renew(List.of())))
			.withMessageContaining("renew.lua");
		assertThatIllegalStateException()
			.isThrownBy(() -> LockScripts.EXTEND.call(List.of(spec), new ScriptArgs.Extend("owner", 1, "h", 1000)))
			.withMessageContaining("extend.lua");
	}

	@Test
	void shouldBuildTheKeysOfALockInTheDeclaredOrder() {
		LockSpec spec = spec();
		String fence = LockKeys.fence("p:{orders:42}");
		ScriptArgs.Acquire acquire = new ScriptArgs.Acquire("o", "h", 1000, -1, "", 30000, false, false, true, 60000,
				1);
		assertThat(LockScripts.ACQUIRE.call(spec, acquire).keys()).containsExactly("p:{orders:42}", fence,
				"p:{orders:42}:readers", "p:{orders:42}:intent", "p:{orders:42}:requests");
		ScriptArgs.Release release = new ScriptArgs.Release("o", 1, "h", true, 0, null);
		assertThat(LockScripts.RELEASE.call(spec, release).keys()).containsExactly("p:{orders:42}",
				"p:{orders:42}:released", "p:{orders:42}:requests", "p:{orders:42}:readers");
		ScriptArgs.AcquireAll all = new ScriptArgs.AcquireAll("o", "h", true, 60000, "", 30000, List.of(1000L, 1000L));
		assertThat(LockScripts.ACQUIRE_ALL.call(List.of(spec, spec), all).keys()).hasSize(10)
			.startsWith("p:{orders:42}", fence, "p:{orders:42}:readers", "p:{orders:42}:requests",
					"p:{orders:42}:released", "p:{orders:42}");
		assertThatIllegalStateException()
			.isThrownBy(() -> LockScripts.HELD_MEMBER.call(spec, new ScriptArgs.HeldMember("o", "")))
			.withMessageContaining("members");
	}

	@Test
	void shouldWriteTheClockAndTheFencingRuleOnlyInTheLibrary() {
		for (LuaScript<?> script : LockScripts.ALL) {
			String code = code(LuaScript.read(script.name()));
			assertThat(code).as(script.name())
				.doesNotContain("'TIME'")
				.doesNotContain("1000000")
				.doesNotContain("string.format('%.0f'")
				.doesNotContain("math.max(last")
				.doesNotContainPattern("'SET',[^\\n]*'GET'");
		}
		String library = LuaScript.read(LuaScript.LIBRARY);
		assertThat(library).contains("'TIME'").contains("'SET', counter, token, 'PX', idle_ms, 'GET'");
	}

	@Test
	void shouldTakeTheShaOverTheLibraryAndTheScript() throws Exception {
		LuaScript<?> script = LockScripts.READ_HOLD;
		String text = new String(script.text(), java.nio.charset.StandardCharsets.UTF_8);
		assertThat(text).isEqualTo(LuaScript.LIBRARY_FUNCTIONS.prelude(LuaScript.read("read-hold.lua")) + "\n"
				+ LuaScript.read("read-hold.lua"));
		byte[] digest = java.security.MessageDigest.getInstance("SHA-1").digest(script.text());
		assertThat(new String(script.sha1(), java.nio.charset.StandardCharsets.US_ASCII))
			.isEqualTo(java.util.HexFormat.of().formatHex(digest));
	}

	private static LockSpec spec() {
		return new LockSpec(new io.github.distributedlock.LockName("orders", "42"), "p:{orders:42}",
				"p:{orders:42}:released", LockKind.EXCLUSIVE, 0, "q", 1000, 0, false, false, 0, 0,
				new WaitMode(io.github.distributedlock.WaitStrategy.PUBSUB, List.of("p:{orders:42}:released"), 0), true,
				null);
	}

	private static List<String> scriptResources() throws IOException {
		try {
			Path folder = Path.of(LuaScript.class.getResource(LuaScript.LIBRARY).toURI()).getParent();
			try (Stream<Path> files = Files.list(folder)) {
				return files.map((file) -> file.getFileName().toString())
					.filter((name) -> name.endsWith(".lua") && !name.equals(LuaScript.LIBRARY))
					.sorted()
					.toList();
			}
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String code(String script) {
		return Stream.of(script.split("\n")).map((line) -> {
			int comment = line.indexOf("--");
			return (comment >= 0) ? line.substring(0, comment) : line;
		}).reduce("", (all, line) -> all + line + "\n");
	}

	private static int highest(Pattern use, String code) {
		int highest = 0;
		Matcher matcher = use.matcher(code);
		while (matcher.find()) {
			highest = Math.max(highest, Integer.parseInt(matcher.group(1)));
		}
		return highest;
	}

}
