package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Each script is sent with the library functions it calls, and only those.
 */
class LuaLibraryTests {

	private static final Pattern DEFINED = Pattern.compile("(?m)^local function (\\w+)\\(");

	@Test
	void shouldDefineEveryLibraryFunctionThatAScriptCallsBeforeItsCallers() {
		String library = LuaScript.read(LuaScript.LIBRARY);
		for (LuaScript<?> script : LockScripts.ALL) {
			String text = new String(script.text(), StandardCharsets.UTF_8);
			Matcher function = DEFINED.matcher(library);
			while (function.find()) {
				String name = function.group(1);
				int definition = text.indexOf("local function " + name + "(");
				Matcher call = Pattern.compile("(?<![\\w.:])" + name + "\\s*\\(").matcher(text);
				while (call.find()) {
					if (call.start() != definition + "local function ".length()) {
						assertThat(definition).as("%s calls %s at %d", script.name(), name, call.start())
							.isNotNegative()
							.isLessThan(call.start());
					}
				}
			}
		}
	}

	@Test
	void shouldLeaveOutTheFunctionsThatAScriptDoesNotCall() {
		String release = new String(LockScripts.RELEASE.text(), StandardCharsets.UTF_8);
		// keep_taken calls now_ms, which comes along; now_ms reads the clock itself, so
		// server_time (which joins the microseconds' text too) does not.
		assertThat(release).contains("local function keep_taken(")
			.contains("local function now_ms(")
			.doesNotContain("local function server_time(")
			.doesNotContain("local function next_token(")
			.doesNotContain("local function file_request(");
		String acquire = new String(LockScripts.ACQUIRE.text(), StandardCharsets.UTF_8);
		assertThat(acquire).contains("local function now_ms(").doesNotContain("local function server_time(");
		String readHold = new String(LockScripts.READ_HOLD.text(), StandardCharsets.UTF_8);
		assertThat(readHold).doesNotContain("local function");
		// acquire-read hands next_token the clock that server_time read.
		String acquireRead = new String(LockScripts.ACQUIRE_READ.text(), StandardCharsets.UTF_8);
		assertThat(acquireRead).contains("local function next_token(")
			.contains("local function server_time(")
			.doesNotContain("local function server_micros(");
	}

	@Test
	void shouldKeepEachFunctionsCommentWithIt() {
		LuaLibrary library = LuaLibrary.parse("test.lua", """
				-- header

				-- doubles
				local function twice(x)
					return 2 * x
				end

				-- unused
				local function never()
				end
				""");
		assertThat(library.prelude("return twice(1)")).isEqualTo("""
				-- doubles
				local function twice(x)
					return 2 * x
				end

				""");
	}

	@Test
	void shouldDefineAtTheRestLineTheFunctionsThatOnlyTheCodeBelowCalls() {
		LuaLibrary library = twiceAndFourTimes();
		String script = "if ARGV[1] then\n\treturn twice(1)\nend\n" + LuaLibrary.REST + "\nreturn four_times(1)\n";
		assertThat(library.link(script)).isEqualTo("""
				-- doubles
				local function twice(x)
					return 2 * x
				end


				if ARGV[1] then
					return twice(1)
				end
				-- quadruples
				local function four_times(x)
					return twice(twice(x))
				end


				return four_times(1)
				""");
		assertThat(library.link(script.replace(LuaLibrary.REST, LuaLibrary.REST + " \t")))
			.as("a mark followed by blanks")
			.isEqualTo(library.link(script));
	}

	@Test
	void shouldDefineAtEachRestLineTheFunctionsThatTheCodeDownToTheNextOneCalls() {
		LuaLibrary library = twiceAndFourTimes();
		String script = "if ARGV[1] then\n\treturn twice(1)\nend\n" + LuaLibrary.REST
				+ "\nif ARGV[2] then\n\treturn four_times(1)\nend\n" + LuaLibrary.REST + "\nnever()\nreturn twice(2)\n";
		assertThat(library.link(script)).isEqualTo("""
				-- doubles
				local function twice(x)
					return 2 * x
				end


				if ARGV[1] then
					return twice(1)
				end
				-- quadruples
				local function four_times(x)
					return twice(twice(x))
				end


				if ARGV[2] then
					return four_times(1)
				end
				-- does nothing
				local function never()
				end


				never()
				return twice(2)
				""");
	}

	@Test
	void shouldLeaveTheFunctionsOfTheUncommonCasesOutOfTheUsualOnes() {
		// The usual release returns before the minimum hold's functions are defined, and
		// the usual acquire before those of waiting, readers and re-entry.
		String release = new String(LockScripts.RELEASE.text(), StandardCharsets.UTF_8);
		assertThat(release.indexOf("local function keep_taken(")).isGreaterThan(release.indexOf("redis.call('DEL'"));
		assertThat(release.indexOf("local function check_hold(")).isLessThan(release.indexOf("redis.call('DEL'"));
		String acquire = new String(LockScripts.ACQUIRE.text(), StandardCharsets.UTF_8);
		int usual = acquire.indexOf("return {1, tonumber(token)}");
		assertThat(acquire.indexOf("local function next_token(")).isLessThan(usual);
		assertThat(acquire.indexOf("local function file_request(")).isGreaterThan(usual);
		assertThat(acquire.indexOf("local function lengthen_lease(")).isGreaterThan(usual);
		assertThat(acquire.indexOf("local function file_and_mark(")).isGreaterThan(usual);
		assertThat(acquire.indexOf("local function drop_intent(")).isGreaterThan(usual);
	}

	@Test
	void shouldReadALibraryCheckedOutWithWindowsLineEnds() {
		// Git's core.autocrlf may check lib.lua out with CRLF line ends.
		String library = LuaScript.read(LuaScript.LIBRARY).replace("\n", "\r\n");
		String release = LuaScript.read("release.lua").replace("\n", "\r\n");
		assertThat(LuaLibrary.parse(LuaScript.LIBRARY, library).prelude(release))
			.contains("local function keep_taken(");
	}

	@Test
	void shouldRefuseALibraryWithCodeOutsideItsFunctions() {
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test.lua", """
				local limit = 3
				local function twice(x)
					return 2 * x
				end
				""")).withMessageContaining("test.lua line 1").withMessageContaining("local limit = 3");
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test.lua", """
				local function twice(x)
					return 2 * x
				  end
				""")).withMessageContaining("twice has no 'end' in the first column");
	}

	/**
	 * A library of three functions: one that calls another, and one that calls none.
	 */
	private static LuaLibrary twiceAndFourTimes() {
		return LuaLibrary.parse("test.lua", """
				-- doubles
				local function twice(x)
					return 2 * x
				end

				-- quadruples
				local function four_times(x)
					return twice(twice(x))
				end

				-- does nothing
				local function never()
				end
				""");
	}

}
