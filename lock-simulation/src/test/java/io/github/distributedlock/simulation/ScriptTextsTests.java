package io.github.distributedlock.simulation;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.redis.script.LuaScript;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ScriptTexts} hands out the text each script is sent with, for the simulation.
 */
class ScriptTextsTests {

	@Test
	void shouldGiveTheTextEveryScriptIsSentWith() {
		Map<String, String> texts = ScriptTexts.all();
		assertThat(texts.keySet()).containsExactlyElementsOf(LockScripts.ALL.stream().map(LuaScript::name).toList());
		for (LuaScript<?> script : LockScripts.ALL) {
			assertThat(texts.get(script.name()).getBytes(StandardCharsets.UTF_8)).as(script.name())
				.isEqualTo(script.text());
		}
		assertThat(texts.get("acquire.lua")).startsWith("-- The owner as every lock key")
			.contains("local function digest(");
	}

}
