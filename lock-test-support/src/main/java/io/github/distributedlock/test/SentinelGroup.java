package io.github.distributedlock.test;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The Sentinels monitoring one master name and what they report, asked in turn so that
 * tests may stop or kill some of them.
 */
final class SentinelGroup {

	private final String masterName;

	private final List<RedisProcess> sentinels;

	SentinelGroup(String masterName, List<RedisProcess> sentinels) {
		this.masterName = masterName;
		this.sentinels = List.copyOf(sentinels);
	}

	List<RedisProcess> processes() {
		return this.sentinels;
	}

	/**
	 * Return the master address reported by the first running Sentinel that answers.
	 */
	HostAndPort reportedMaster() {
		return askAny(this::reportedMaster);
	}

	/**
	 * Return whether every running Sentinel reports this master address.
	 */
	boolean allReport(HostAndPort master) {
		return this.sentinels.stream()
			.filter(RedisProcess::isRunning)
			.allMatch((sentinel) -> master.equals(reportedMaster(sentinel)));
	}

	/**
	 * Return whether every Sentinel knows the replica, with its link to the master up,
	 * and all the other Sentinels. A Sentinel refuses to promote a replica it has not
	 * seen healthy.
	 */
	boolean allKnow(HostAndPort replica) {
		return this.sentinels.stream().allMatch((sentinel) -> knowsHealthy(sentinel, replica) && knowsPeers(sentinel));
	}

	/**
	 * Ask a Sentinel to promote a replica now ({@code SENTINEL FAILOVER}).
	 * @return whether a failover runs, {@code false} when no Sentinel deems a replica fit
	 * yet
	 * @throws IllegalStateException if the Sentinel refuses for another reason
	 */
	boolean requestFailover() {
		try {
			return askAny((sentinel) -> {
				sentinel.command("SENTINEL", "FAILOVER", this.masterName);
				return true;
			});
		}
		catch (RedisCommandException ex) {
			return switch (ex.errorCode()) {
				// The Sentinel has not seen the replica healthy for long enough, as right
				// after a failover.
				case "NOGOODSLAVE" -> false;
				// A failover already runs, and it can only promote the same replica.
				case "INPROG" -> true;
				default -> throw new IllegalStateException(
						"SENTINEL FAILOVER " + this.masterName + " failed: " + ex.getMessage(), ex);
			};
		}
	}

	String describe() {
		StringBuilder description = new StringBuilder("Sentinels report master '" + this.masterName + "' at:");
		for (RedisProcess sentinel : this.sentinels) {
			description.append(" ")
				.append(HostAndPort.of(sentinel))
				.append(" -> ")
				.append(ask(sentinel,
						(s) -> reportedMaster(s) + " (tilt "
								+ InfoFields.parse(s.command("INFO", "sentinel")).get("sentinel_tilt") + ")"))
				.append(";");
		}
		return description.toString();
	}

	/**
	 * Return an answer of a server for diagnostics, whatever goes wrong.
	 */
	static String ask(RedisProcess server, Function<RedisProcess, @Nullable Object> question) {
		if (!server.isRunning()) {
			return "not running";
		}
		try {
			return String.valueOf(question.apply(server));
		}
		catch (RuntimeException ex) {
			return "no answer (" + ex.getMessage() + ")";
		}
	}

	private HostAndPort reportedMaster(RedisProcess sentinel) {
		Object reply = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.masterName);
		if (reply instanceof List<?> address && address.size() == 2) {
			return new HostAndPort(String.valueOf(address.get(0)), Integer.parseInt(String.valueOf(address.get(1))));
		}
		throw new IllegalStateException(
				"Sentinel " + HostAndPort.of(sentinel) + " does not know master '" + this.masterName + "': " + reply);
	}

	private boolean knowsHealthy(RedisProcess sentinel, HostAndPort replica) {
		Object replicas = sentinel.command("SENTINEL", "REPLICAS", this.masterName);
		return (replicas instanceof List<?> entries) && entries.stream()
			.map(InfoFields::ofPairs)
			.anyMatch((entry) -> replica.host().equals(entry.get("ip"))
					&& String.valueOf(replica.port()).equals(entry.get("port")) && "slave".equals(entry.get("flags"))
					&& "ok".equals(entry.get("master-link-status")));
	}

	private boolean knowsPeers(RedisProcess sentinel) {
		Object peers = sentinel.command("SENTINEL", "SENTINELS", this.masterName);
		return (peers instanceof List<?> entries) && entries.size() == this.sentinels.size() - 1;
	}

	private <T> T askAny(Function<RedisProcess, T> question) {
		IllegalStateException failure = new IllegalStateException(
				"No Sentinel of master '" + this.masterName + "' is running and reachable");
		for (RedisProcess sentinel : this.sentinels) {
			if (sentinel.isRunning()) {
				try {
					return question.apply(sentinel);
				}
				catch (UncheckedIOException ex) {
					failure.addSuppressed(ex);
				}
			}
		}
		throw failure;
	}

}
