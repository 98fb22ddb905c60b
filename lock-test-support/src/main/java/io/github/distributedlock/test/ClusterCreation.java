package io.github.distributedlock.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Joins launched nodes into a cluster with {@code redis-cli --cluster create}, keeping
 * its output for diagnostics.
 */
final class ClusterCreation {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final Path cli;

	private final List<RedisProcess> nodes;

	private final int replicasPerMaster;

	ClusterCreation(Path cli, List<RedisProcess> nodes, int replicasPerMaster) {
		this.cli = cli;
		this.nodes = List.copyOf(nodes);
		this.replicasPerMaster = replicasPerMaster;
	}

	/**
	 * Run {@code redis-cli}, which assigns the slots, introduces the nodes to each other
	 * and picks the replicas.
	 * @throws IllegalStateException if it fails or does not finish within 30 seconds
	 */
	void run() {
		Path output = output();
		try {
			Process process = new ProcessBuilder(command()).redirectErrorStream(true)
				.redirectOutput(output.toFile())
				.start();
			// --cluster-yes answers its only question; no input must make it wait.
			process.getOutputStream().close();
			if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("redis-cli --cluster create did not finish within "
						+ TIMEOUT.toSeconds() + " s. Output:\n" + outputText());
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException("redis-cli --cluster create failed with exit code "
						+ process.exitValue() + ". Output:\n" + outputText());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run " + this.cli + ": " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while creating the cluster with " + this.cli, ex);
		}
	}

	/**
	 * Return what {@code redis-cli} printed, to explain a cluster that never became
	 * ready.
	 */
	String outputText() {
		try {
			return Files.readString(output(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no output: " + ex.getMessage() + ")";
		}
	}

	private List<String> command() {
		List<String> command = new ArrayList<>(List.of(this.cli.toString(), "--cluster", "create"));
		this.nodes.forEach((node) -> command.add(HostAndPort.of(node).toString()));
		if (this.replicasPerMaster > 0) {
			command.addAll(List.of("--cluster-replicas", Integer.toString(this.replicasPerMaster)));
		}
		command.add("--cluster-yes");
		return command;
	}

	/**
	 * The output goes to the first node's directory, deleted with it.
	 */
	private Path output() {
		return this.nodes.get(0).directory().resolve("cluster-create.out");
	}

}
