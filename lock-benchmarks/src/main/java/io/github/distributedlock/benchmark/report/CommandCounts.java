package io.github.distributedlock.benchmark.report;

import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Redis commands per acquisition, counted two ways.
 *
 * @param clientIssued commands the client sent (round trips), per acquisition, by command
 * name: from {@code MONITOR} in a separate phase, leaving out the lines that Redis marks
 * as run inside Lua ({@code [0 lua]})
 * @param server every command Redis executed, per acquisition, including those run inside
 * Lua scripts: from {@code INFO commandstats} over the measured phase
 */
public record CommandCounts(Map<String, Double> clientIssued, Map<String, Double> server) {

	/**
	 * No counts.
	 */
	public static final CommandCounts NONE = new CommandCounts(Map.of(), Map.of());

	/**
	 * Divide raw counts by the acquisitions they were counted over.
	 * @param client client-issued commands by name
	 * @param clientAcquisitions acquisitions while they were counted
	 * @param server server-side commands by name
	 * @param serverAcquisitions acquisitions while they were counted
	 * @return the counts per acquisition
	 */
	public static CommandCounts of(Map<String, Long> client, long clientAcquisitions, Map<String, Long> server,
			long serverAcquisitions) {
		return new CommandCounts(perAcquisition(client, clientAcquisitions),
				perAcquisition(server, serverAcquisitions));
	}

	private static Map<String, Double> perAcquisition(Map<String, Long> counts, long acquisitions) {
		Map<String, Double> result = new TreeMap<>();
		counts.forEach((name, calls) -> result.put(name, (acquisitions > 0) ? (double) calls / acquisitions : 0));
		return result;
	}

	/**
	 * Return the client-issued commands per acquisition: the round trips.
	 * @return the round trips
	 */
	public double roundTrips() {
		return this.clientIssued.values().stream().mapToDouble(Double::doubleValue).sum();
	}

	/**
	 * Return every command Redis executed per acquisition, including inside scripts.
	 * @return the server-side commands
	 */
	public double serverCommands() {
		return this.server.values().stream().mapToDouble(Double::doubleValue).sum();
	}

	/**
	 * Describe the client-issued commands, such as {@code evalsha 2.00}.
	 * @return the breakdown
	 */
	public String clientBreakdown() {
		return breakdown(this.clientIssued);
	}

	/**
	 * Describe the server-side commands, such as {@code hmget 2.00, publish 1.00}.
	 * @return the breakdown
	 */
	public String serverBreakdown() {
		return breakdown(this.server);
	}

	private static String breakdown(Map<String, Double> counts) {
		StringJoiner joiner = new StringJoiner(", ");
		counts.entrySet()
			.stream()
			.filter((entry) -> entry.getValue() >= 0.005)
			.sorted(Map.Entry.<String, Double>comparingByValue().reversed())
			.forEach(
					(entry) -> joiner.add(entry.getKey() + " " + String.format(Locale.ROOT, "%.2f", entry.getValue())));
		return (joiner.length() == 0) ? "—" : joiner.toString();
	}

}
