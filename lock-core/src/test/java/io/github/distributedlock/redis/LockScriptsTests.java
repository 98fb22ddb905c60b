package io.github.distributedlock.redis;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ReturnType;

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
	void shouldMatchEachHeaderDeclaration() {
		for (LuaScript script : LockScripts.ALL) {
			String text = LuaScript.read(script.name());
			assertThat(LuaScript.header(script.name(), text, "KEYS")).as("KEYS of %s", script.name())
				.isEqualTo(script.keySignature());
			assertThat(LuaScript.header(script.name(), text, "ARGV")).as("ARGV of %s", script.name())
				.isEqualTo(script.argSignature());
		}
	}

	@Test
	void shouldUseExactlyTheDeclaredKeysAndArguments() {
		for (LuaScript script : LockScripts.ALL) {
			if (!script.keySignature().repeated().isEmpty()) {
				continue;
			}
			String code = code(LuaScript.read(script.name()));
			assertThat(highest(KEY_USE, code)).as("highest KEYS index used by %s", script.name())
				.isEqualTo(script.keySignature().fixed().size());
			ScriptSignature args = script.argSignature();
			assertThat(highest(ARG_USE, code)).as("highest ARGV index used by %s", script.name())
				.isEqualTo(args.fixed().size() + args.optional().size());
		}
	}

	@Test
	void shouldRefuseToLoadAScriptWhoseHeaderDeclaresOtherKeys() {
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaScript.load("release.lua", ReturnType.INTEGER, "lock, requests, channel, readers",
					"owner, token, hand_off, [withdrawn_request]"))
			.withMessageContaining("release.lua")
			.withMessageContaining("lock, channel, requests, readers");
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaScript.load("extend.lua", ReturnType.INTEGER, "lock", "owner, token, lease_ms"))
			.withMessageContaining("extend.lua")
			.withMessageContaining("owner, token, hold, lease_ms");
	}

	@Test
	void shouldRefuseACallWithAnotherNumberOfKeysOrArguments() {
		LockScripts.EXTEND.checkArity(1, 4);
		assertThatIllegalArgumentException().isThrownBy(() -> LockScripts.EXTEND.checkArity(1, 5))
			.withMessageContaining("extend.lua")
			.withMessageContaining("5 arguments");
		assertThatIllegalArgumentException().isThrownBy(() -> LockScripts.EXTEND.checkArity(1, 3));
		assertThatIllegalArgumentException().isThrownBy(() -> LockScripts.EXTEND.checkArity(2, 4));
		// An optional last argument may be left out, and nothing more may be passed.
		LockScripts.RELEASE.checkArity(4, 5);
		LockScripts.RELEASE.checkArity(4, 6);
		assertThatIllegalArgumentException().isThrownBy(() -> LockScripts.RELEASE.checkArity(4, 7));
		LockScripts.ACQUIRE_ALL.checkArity(10, 8);
		assertThatIllegalArgumentException().isThrownBy(() -> LockScripts.ACQUIRE_ALL.checkArity(9, 8));
		assertThatIllegalArgumentException().isThrownBy(() -> LockScripts.ACQUIRE_ALL.checkArity(5, 6));
		LockScripts.RENEW.checkArity(2, 8);
		assertThatIllegalArgumentException().isThrownBy(() -> LockScripts.RENEW.checkArity(2, 6));
	}

	@Test
	void shouldParseSignatures() {
		ScriptSignature optional = ScriptSignature.parse(" owner, token,  [keep_longer] ");
		assertThat(optional.fixed()).containsExactly("owner", "token");
		assertThat(optional.optional()).containsExactly("keep_longer");
		assertThat(optional).hasToString("owner, token, [keep_longer]");
		ScriptSignature repeated = ScriptSignature.parse("owner, (lock, lease_ms)...");
		assertThat(repeated.fixed()).containsExactly("owner");
		assertThat(repeated.repeated()).containsExactly("lock", "lease_ms");
		assertThat(ScriptSignature.parse("(lock)...").fixed()).isEmpty();
		assertThat(ScriptSignature.parse("").fixed()).isEmpty();
		assertThat(ScriptSignature.parse("").accepts(0)).isTrue();
		assertThat(ScriptSignature.parse("").accepts(1)).isFalse();
		for (String invalid : new String[] { "a,,b", "[a], b", "(a)..., b", "a (b)...", "A", "()...", "a b" }) {
			assertThatIllegalArgumentException().as(invalid)
				.isThrownBy(() -> ScriptSignature.parse(invalid))
				.withMessageContaining(invalid);
		}
	}

	@Test
	void shouldBuildTheKeysOfALockInTheDeclaredOrder() {
		LockSpec spec = new LockSpec(new io.github.distributedlock.LockName("orders", "42"), "p:{orders:42}",
				"p:{orders:42}:released", List.of("p:{orders:42}:released"), 1000, 0,
				io.github.distributedlock.WaitStrategy.PUBSUB, true, false, 0, null, false, LockKind.EXCLUSIVE, 0, "q",
				0, 0);
		String fence = LockKeys.fence("p:{orders:42}");
		assertThat(LockScripts.ACQUIRE.keys(spec)).containsExactly("p:{orders:42}", fence, "p:{orders:42}:readers",
				"p:{orders:42}:intent", "p:{orders:42}:requests");
		assertThat(LockScripts.RELEASE.keys(spec)).containsExactly("p:{orders:42}", "p:{orders:42}:released",
				"p:{orders:42}:requests", "p:{orders:42}:readers");
		assertThat(LockScripts.ACQUIRE_ALL.keys(List.of(spec, spec))).hasSize(10)
			.startsWith("p:{orders:42}", fence, "p:{orders:42}:readers", "p:{orders:42}:requests",
					"p:{orders:42}:released", "p:{orders:42}");
		assertThatIllegalStateException().isThrownBy(() -> LockScripts.HELD_MEMBER.keys(spec))
			.withMessageContaining("members");
	}

	@Test
	void shouldWriteTheClockAndTheFencingRuleOnlyInTheLibrary() {
		for (LuaScript script : LockScripts.ALL) {
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
		LuaScript script = LockScripts.READ_HOLD;
		String text = new String(script.text(), java.nio.charset.StandardCharsets.UTF_8);
		assertThat(text).isEqualTo(LuaScript.LIBRARY_FUNCTIONS.prelude(LuaScript.read("read-hold.lua")) + "\n"
				+ LuaScript.read("read-hold.lua"));
		byte[] digest = java.security.MessageDigest.getInstance("SHA-1").digest(script.text());
		assertThat(new String(script.sha1(), java.nio.charset.StandardCharsets.US_ASCII))
			.isEqualTo(java.util.HexFormat.of().formatHex(digest));
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
