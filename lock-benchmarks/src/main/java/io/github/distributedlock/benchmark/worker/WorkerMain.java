package io.github.distributedlock.benchmark.worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.benchmark.LoopSpec;

/**
 * Entry point of a worker JVM: reads one command per line from standard input and answers
 * with {@code @@ } lines on standard output. Commands run one at a time on a single
 * thread, which matters because Redisson and Spring Integration locks must be released by
 * the thread that took them. The worker halts when its input closes, so it never outlives
 * the coordinator.
 */
public final class WorkerMain {

	/**
	 * The last argument of a worker whose clients connect to a Redis Cluster through the
	 * given node.
	 */
	public static final String CLUSTER = "cluster";

	private final int workerId;

	private final LockClients clients;

	private final ExecutorService commands = Executors.newSingleThreadExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "worker-commands");
		thread.setDaemon(true);
		return thread;
	});

	private final Blocker blocker;

	private WorkerMain(String host, int port, boolean cluster, int workerId) {
		this.workerId = workerId;
		this.clients = new LockClients(host, port, cluster);
		this.blocker = new Blocker(this.clients);
	}

	/**
	 * Run a worker.
	 * @param args the Redis host, its port and this worker's id, then {@value #CLUSTER}
	 * when that server is a node of a Redis Cluster
	 * @throws IOException if standard input fails
	 */
	public static void main(String[] args) throws IOException {
		boolean cluster = args.length > 3 && args[3].equals(CLUSTER);
		WorkerMain worker = new WorkerMain(args[0], Integer.parseInt(args[1]), cluster, Integer.parseInt(args[2]));
		Replies.send("READY " + Runtime.version().feature() + " " + System.getProperty("java.runtime.version") + " "
				+ JvmStats.pid());
		if (worker.readCommands()) {
			// Told to exit: shutdown hooks run, so a flight recording asked for by
			// BENCH_WORKER_JVM_ARGS is written.
			System.exit(0);
		}
		// Input closed without EXIT: the coordinator is gone. Halt without waiting for
		// library threads.
		Runtime.getRuntime().halt(0);
	}

	/**
	 * Read and run commands until {@code EXIT} or the end of input.
	 * @return whether the worker was told to exit and has closed its clients
	 */
	private boolean readCommands() throws IOException {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			String[] words = line.trim().split(" ");
			if (words[0].equals("EXIT")) {
				this.commands.execute(this.clients::close);
				this.commands.shutdown();
				return awaitCommands();
			}
			this.commands.execute(() -> run(words[0], Arrays.copyOfRange(words, 1, words.length)));
		}
		return false;
	}

	private boolean awaitCommands() {
		try {
			return this.commands.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private void run(String command, String[] args) {
		try {
			switch (command) {
				case LoopSpec.COMMAND ->
					Replies.send(new LoopWorkload(LoopSpec.parse(args), this.workerId).run(this.clients));
				case "HOLD" -> Replies.send(SingleLock.hold(this.clients, args));
				case "WAIT" -> Replies.send(SingleLock.await(this.clients, args));
				case "BLOCK" -> Replies.send(this.blocker.block(args));
				case "UNBLOCK" -> Replies.send(this.blocker.unblock(args));
				case "WAITERS" -> new Waiters(this.clients, this.workerId, args).run();
				default -> throw new IllegalArgumentException("Unknown command " + command);
			}
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			Replies.send("ERROR " + command + ": " + String.valueOf(ex).replace('\n', ' '));
		}
	}

}
