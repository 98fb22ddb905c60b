package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the text every script is sent with (the {@code lib.lua} functions it calls, then
 * the script) must hold to.
 */
class ScriptTextsTests {

	// A literal number as an argument of redis.call, once quoted strings are taken out.
	private static final Pattern NUMBER_ARGUMENT = Pattern.compile("[,(]\\s*-?\\d+\\s*[,)]");

	private static final Pattern QUOTED = Pattern.compile("'[^']*'|\"[^\"]*\"");

	@Test
	void shouldSendTheLibraryFunctionsAScriptCallsBeforeIt() {
		assertThat(text(LockScripts.ACQUIRE)).startsWith("-- The owner as every lock key")
			.contains("local function digest(");
	}

	@Test
	void shouldPassEveryLiteralNumberToRedisAsText() {
		// Redis formats each Lua number that a script passes to redis.call with sprintf:
		// about 2,300 instructions each, a tenth of the floor's whole acquire and
		// release. As text ('1'), the command gets the same bytes for nothing.
		List<String> numbers = new ArrayList<>();
		LockScripts.ALL.forEach((script) -> text(script).lines().forEach((line) -> {
			int call = line.indexOf("redis.call(");
			call = (call >= 0) ? call : line.indexOf("redis.pcall(");
			if (call >= 0 && !line.strip().startsWith("--")
					&& NUMBER_ARGUMENT.matcher(QUOTED.matcher(line.substring(call)).replaceAll("''")).find()) {
				numbers.add(script.name() + ": " + line.strip());
			}
		}));
		assertThat(numbers).isEmpty();
	}

	private static String text(LuaScript<?> script) {
		return new String(script.text(), StandardCharsets.UTF_8);
	}

}
