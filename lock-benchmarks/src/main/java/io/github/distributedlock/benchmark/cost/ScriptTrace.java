package io.github.distributedlock.benchmark.cost;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;
import org.jspecify.annotations.Nullable;

/**
 * Follows every command with {@code MONITOR} and ties each command a Lua script runs to
 * the script call it ran in. Redis writes a script call to the monitors before the
 * commands it runs, tagged {@code lua}, and runs a script with nothing in between, so the
 * commands tagged {@code lua} belong to the latest call. Only counts are kept: MONITOR
 * slows Redis down, so nothing this trace watches is timed.
 */
final class ScriptTrace implements AutoCloseable {

	/**
	 * The harness's own commands, left out of every count.
	 */
	static final Set<String> HARNESS = Set.of("info", "config|resetstat", "monitor", "echo", "client|list", "scan",
			"pubsub|channels", "pubsub|numsub", "dbsize", "ping");

	private final RespConnection connection;

	private final CountDownLatch markerSeen = new CountDownLatch(1);

	private volatile @Nullable String marker;

	// Written by the reader thread only, read after markerSeen.
	private final Map<String, Long> sent = new TreeMap<>();

	private final Map<String, ScriptRuns> scripts = new TreeMap<>();

	private @Nullable List<String> current;

	private @Nullable ScriptRuns currentScript;

	private ScriptTrace(RespConnection connection) {
		this.connection = connection;
	}

	static ScriptTrace start(RedisServer server) {
		RespConnection connection = server.connect();
		Object ok = connection.command("MONITOR");
		if (!"OK".equals(ok)) {
			connection.close();
			throw new IllegalStateException("MONITOR answered " + ok);
		}
		ScriptTrace trace = new ScriptTrace(connection);
		Thread reader = new Thread(trace::read, "cost-monitor");
		reader.setDaemon(true);
		reader.start();
		return trace;
	}

	/**
	 * Stop once every command sent so far has been seen.
	 * @return what the clients sent and what each script ran
	 */
	Traced finish(RedisServer server) {
		String end = "cost-monitor-end-" + System.nanoTime();
		this.marker = end;
		server.command("ECHO", end);
		try {
			if (!this.markerSeen.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("MONITOR did not show the end marker within 30 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while finishing MONITOR", ex);
		}
		close();
		endCall();
		return new Traced(Map.copyOf(this.sent), Map.copyOf(this.scripts));
	}

	private void read() {
		try {
			while (true) {
				if (!(this.connection.awaitNext() instanceof String line)) {
					continue;
				}
				String end = this.marker;
				if (end != null && line.contains(end)) {
					this.markerSeen.countDown();
					return;
				}
				take(line);
			}
		}
		catch (IOException ex) {
			// Closed.
		}
	}

	/**
	 * Take one line such as {@code 1700000000.123456 [0 127.0.0.1:50000] "fcall" "…"} (or
	 * {@code "evalsha"}).
	 */
	void take(String line) {
		int open = line.indexOf('[');
		int close = line.indexOf(']', open + 1);
		if (open < 0 || close < 0) {
			return;
		}
		List<String> args = arguments(line, close + 1);
		if (args.isEmpty()) {
			return;
		}
		String command = args.get(0).toLowerCase(Locale.ROOT);
		if (line.substring(open + 1, close).endsWith(" lua")) {
			List<String> call = this.current;
			if (call != null) {
				call.add(step(command, args));
			}
			return;
		}
		endCall();
		if (command.equals("pubsub") || command.equals("config") || command.equals("client")) {
			command = command + "|" + args.get(1).toLowerCase(Locale.ROOT);
		}
		if (HARNESS.contains(command)) {
			return;
		}
		this.sent.merge(command, 1L, Long::sum);
		if (command.equals("evalsha") || command.equals("eval") || command.equals("fcall")) {
			this.currentScript = this.scripts.computeIfAbsent(ScriptNames.name(args), ScriptRuns::new);
			this.current = new ArrayList<>();
		}
	}

	/**
	 * Name one command a script ran, for its path: a message says whether it reserves.
	 */
	private static String step(String command, List<String> args) {
		if (command.equals("publish") && args.size() > 2) {
			return args.get(2).startsWith("reserved:") ? "PUBLISH(reserved)" : "PUBLISH(free)";
		}
		if (command.equals("zadd") || command.equals("set") || command.equals("hset")) {
			return command.toUpperCase(Locale.ROOT) + "/" + (args.size() - 2);
		}
		return command.toUpperCase(Locale.ROOT);
	}

	private void endCall() {
		List<String> call = this.current;
		ScriptRuns script = this.currentScript;
		if (call != null && script != null) {
			script.add(call);
		}
		this.current = null;
		this.currentScript = null;
	}

	/**
	 * Split the quoted arguments of a MONITOR line, undoing its escapes.
	 */
	static List<String> arguments(String line, int from) {
		List<String> args = new ArrayList<>();
		int i = line.indexOf('"', from);
		while (i >= 0 && i < line.length()) {
			StringBuilder arg = new StringBuilder();
			i++;
			while (i < line.length() && line.charAt(i) != '"') {
				char c = line.charAt(i);
				if (c == '\\' && i + 1 < line.length()) {
					char next = line.charAt(i + 1);
					if (next == 'x' && i + 3 < line.length()) {
						arg.append((char) Integer.parseInt(line.substring(i + 2, i + 4), 16));
						i += 4;
						continue;
					}
					arg.append(switch (next) {
						case 'n' -> '\n';
						case 'r' -> '\r';
						case 't' -> '\t';
						default -> next;
					});
					i += 2;
					continue;
				}
				arg.append(c);
				i++;
			}
			args.add(arg.toString());
			i = line.indexOf('"', i + 1);
		}
		return args;
	}

	@Override
	public void close() {
		this.connection.close();
	}

	/**
	 * What one trace saw.
	 *
	 * @param sent commands the clients sent, by lowercase name, one per round trip
	 * (pipelining aside), without the harness's own
	 * @param scripts each script's runs, by script name
	 */
	record Traced(Map<String, Long> sent, Map<String, ScriptRuns> scripts) {

		/**
		 * Return how many commands the scripts ran, by lowercase name.
		 */
		Map<String, Long> inScripts() {
			Map<String, Long> commands = new TreeMap<>();
			this.scripts.values()
				.forEach((runs) -> runs.commands().forEach((name, count) -> commands.merge(name, count, Long::sum)));
			return commands;
		}

	}

}
