package io.github.distributedlock.benchmark.cost;

import java.util.List;

/**
 * Names a script call of a MONITOR line by the keys it passes, as declared in
 * {@code LockScripts}: the engine loads each script's text with its library prepended, so
 * its SHA-1 is not known here, but its keys are.
 */
final class ScriptNames {

	private ScriptNames() {
	}

	/**
	 * Name a call from its arguments: {@code fcall}, {@code evalsha} or {@code eval}; the
	 * function's name, the SHA-1 or the text; the number of keys, the keys, the
	 * arguments.
	 */
	static String name(List<String> call) {
		if (call.size() < 3) {
			return "script";
		}
		int keys = Integer.parseInt(call.get(2));
		int argv = call.size() - 3 - keys;
		String second = (keys >= 2) ? call.get(4) : "";
		if (keys == 5 && second.endsWith(":fence") && call.get(7).endsWith(":requests")) {
			return "acquire.lua";
		}
		if (keys == 4 && second.endsWith(":released")) {
			return (argv == 6) ? "release.lua (withdrawal)" : "release.lua";
		}
		if (keys == 2 && call.get(3).endsWith(":intent")) {
			return "drop-intent.lua";
		}
		String sha = call.get(1);
		return "script " + sha.substring(0, Math.min(8, sha.length())) + " (" + keys + " keys, " + argv + " args)";
	}

}
