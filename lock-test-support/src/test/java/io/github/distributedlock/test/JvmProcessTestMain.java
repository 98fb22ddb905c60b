package io.github.distributedlock.test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Main class of the child JVMs in {@link JvmProcessTests}: prints its arguments, then
 * answers {@code echo <text>} with {@code ECHO <text>} and exits on {@code exit <code>}.
 */
public final class JvmProcessTestMain {

	private JvmProcessTestMain() {
	}

	public static void main(String[] args) throws Exception {
		System.err.println("started with " + args.length + " arguments");
		for (String arg : args) {
			System.out.println("ARG " + arg);
		}
		System.out.println("READY");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			if (line.startsWith("echo ")) {
				System.out.println("ECHO " + line.substring("echo ".length()));
			}
			else if (line.startsWith("exit ")) {
				System.exit(Integer.parseInt(line.substring("exit ".length())));
			}
		}
	}

}
