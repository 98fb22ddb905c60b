package io.github.distributedlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review of {@link LuaLibrary} (commit 4afa720): a library checked out with Windows line
 * ends (Git's core.autocrlf, and the repository has no .gitattributes) is still a
 * library. Before 4afa720 its text was prepended as it was, which Lua reads either way.
 */
class LuaLibraryReviewTests {

	@Test
	void shouldReadALibraryCheckedOutWithWindowsLineEnds() {
		String library = LuaScript.read(LuaScript.LIBRARY).replace("\n", "\r\n");
		String release = LuaScript.read("release.lua").replace("\n", "\r\n");
		assertThat(LuaLibrary.parse(LuaScript.LIBRARY, library).prelude(release))
			.contains("local function keep_taken(");
	}

}
