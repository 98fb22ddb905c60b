package io.github.distributedlock.chaos;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.redis.ProtocolTimings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of re-send tests in {@code docs/chaos/README.md} ("Commands re-sent after a
 * reconnect") against the engine and this module: every script the engine sends has a
 * row, so that a new script shows up here until a test re-sends it, and every test the
 * table names exists.
 */
class ResendCoverageTests {

	private static final Path README = Path.of("..", "docs", "chaos", "README.md");

	private static final String SECTION = "### Commands re-sent after a reconnect";

	private static final Pattern ROW = Pattern.compile("(?m)^\\| (`[^|]+\\.lua`(?:, `[^|]+\\.lua`)*) \\|(.*)\\|$");

	private static final Pattern TEST = Pattern.compile("`(\\w+)#(\\w+)`");

	@Test
	void shouldListATestForEveryScript() throws IOException {
		List<String> listed = new ArrayList<>();
		Matcher row = ROW.matcher(section());
		while (row.find()) {
			assertThat(TEST.matcher(row.group(2)).find()).as("a test in the row of %s", row.group(1)).isTrue();
			for (String script : row.group(1).split(", ")) {
				listed.add(script.replace("`", ""));
			}
		}
		assertThat(listed).as("the scripts in the table of re-send tests")
			.containsExactlyInAnyOrderElementsOf(ProtocolTimings.scriptNames());
	}

	@Test
	void shouldNameOnlyTestsThatExist() throws Exception {
		Matcher test = TEST.matcher(section());
		int named = 0;
		while (test.find()) {
			Class<?> type = Class.forName(getClass().getPackageName() + "." + test.group(1));
			String method = test.group(2);
			assertThat(Arrays.stream(type.getDeclaredMethods()).map(Method::getName))
				.as("test methods of %s", type.getSimpleName())
				.contains(method);
			named++;
		}
		assertThat(named).as("tests named in the table").isPositive();
	}

	private static String section() throws IOException {
		String readme = Files.readString(README);
		int start = readme.indexOf(SECTION);
		assertThat(start).as("the section '%s' of %s", SECTION, README).isNotNegative();
		int end = readme.indexOf("\n#", start + SECTION.length());
		return readme.substring(start, (end < 0) ? readme.length() : end);
	}

}
