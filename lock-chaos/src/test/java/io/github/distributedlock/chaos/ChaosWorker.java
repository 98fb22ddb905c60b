package io.github.distributedlock.chaos;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.LockException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplateBuilder;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The main class of a worker JVM: threads that take the configured locks in a loop, write
 * to the fenced store twice while holding one, and log every operation as history lines
 * on standard output. Stops after its current operations when it reads {@code stop} on
 * standard input.
 */
final class ChaosWorker {

	private final WorkerConfig config;

	private final RedisLockTemplate template;

	private final PrintStream out;

	private final AtomicBoolean stopping = new AtomicBoolean();

	private ChaosWorker(WorkerConfig config, RedisLockTemplate template, PrintStream out) {
		this.config = config;
		this.template = template;
		this.out = out;
	}

	public static void main(String[] args) throws Exception {
		WorkerConfig config = WorkerConfig.parse(args);
		PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
				false, StandardCharsets.UTF_8);
		LettuceConnectionFactory factory = config.connectionFactory();
		RedisLockTemplateBuilder builder = RedisLockTemplate.builder(factory);
		if (config.replicaAcknowledgements() > 0) {
			builder.replicaAcknowledgements(config.replicaAcknowledgements(), Duration.ofMillis(100));
		}
		if (config.cohortHolders() > 1) {
			builder.cohorts(config.cohortHolders(), Duration.ofMillis(config.cohortMillis()));
		}
		RedisLockTemplate template = build(builder);
		ChaosWorker worker = new ChaosWorker(config, template, out);
		worker.watchStandardInput();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < config.threads(); t++) {
			int thread = t;
			threads.add(new Thread(() -> worker.run(thread), config.name() + "-" + t));
		}
		// The id its hand-off requests carry ('<claim>:<process>.<n>'), so the test can
		// tell whose request is whose.
		worker.line("READY process=" + io.github.distributedlock.redis.ProtocolTimings.processId());
		threads.forEach(Thread::start);
		for (Thread thread : threads) {
			thread.join();
		}
		worker.line("DONE");
		template.close();
		factory.destroy();
		System.exit(0);
	}

	/**
	 * Build the template, trying again a few times if it cannot reach Redis: its first
	 * connection's handshake has the command timeout (0.7 s in some runs), which a JVM
	 * starting beside busy workers on a loaded 2-core machine can miss.
	 */
	private static RedisLockTemplate build(RedisLockTemplateBuilder builder) throws InterruptedException {
		for (int tries = 1;; tries++) {
			try {
				return builder.build();
			}
			catch (RuntimeException ex) {
				if (tries == 5) {
					throw ex;
				}
				System.err.println("Could not build the template, trying again: " + ex);
				Thread.sleep(200);
			}
		}
	}

	private void watchStandardInput() {
		Thread watcher = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
				String line;
				while ((line = in.readLine()) != null && !line.equals("stop")) {
					// Only "stop" is understood.
				}
			}
			catch (IOException ex) {
				// The test JVM is gone: stop as well.
			}
			this.stopping.set(true);
		}, "stdin");
		watcher.setDaemon(true);
		watcher.start();
	}

	private void run(int thread) {
		Random random = new Random(this.config.seed() * 31 + thread);
		try (StoreClient store = new StoreClient(this.config.storePort())) {
			for (long attempt = 0; !this.stopping.get(); attempt++) {
				String key = this.config.keys().get(random.nextInt(this.config.keys().size()));
				String holdId = this.config.name() + "-" + thread + "-" + attempt;
				long hold = this.config.holdMinMillis()
						+ random.nextInt((int) (this.config.holdMaxMillis() - this.config.holdMinMillis() + 1));
				once(store, key, holdId, hold);
			}
		}
		catch (IOException | InterruptedException ex) {
			line("ERROR " + ex);
		}
	}

	private void once(StoreClient store, String key, String holdId, long holdMillis) throws InterruptedException {
		String detail = "lease=" + this.config.leaseMillis();
		if (this.config.autoRenew()) {
			detail += " renew";
		}
		if (!this.config.owner().isEmpty()) {
			detail += " owner=" + this.config.owner();
		}
		event(Event.INVOKE, Event.ACQUIRE, key, holdId, -1, detail);
		LockHandle handle;
		try {
			LockRequest.Builder request = LockRequest.builder(WorkerConfig.SCOPE)
				.key(key)
				.lease(Duration.ofMillis(this.config.leaseMillis()))
				.waitTime(Duration.ofMillis(this.config.waitMillis()));
			if (this.config.autoRenew()) {
				request.autoRenew(true);
			}
			if (!this.config.owner().isEmpty()) {
				request.owner(this.config.owner());
			}
			handle = this.template.acquire(request.build());
		}
		catch (LockTimeoutException ex) {
			event(Event.FAIL, Event.ACQUIRE, key, holdId, -1, "timeout");
			return;
		}
		catch (RuntimeException ex) {
			// The script may have run: Redis may hold the lock for us until the lease
			// ends.
			event(Event.INFO, Event.ACQUIRE, key, holdId, -1, describe(ex));
			// Redis is unreachable: don't spin.
			Thread.sleep(10);
			return;
		}
		long token = handle.fencingToken();
		event(Event.OK, Event.ACQUIRE, key, holdId, token, "waited=" + handle.waited());
		write(store, key, token, holdId);
		Thread.sleep(holdMillis);
		write(store, key, token, holdId);
		event(Event.INVOKE, Event.RELEASE, key, holdId, token, "-");
		try {
			handle.close();
			event(Event.OK, Event.RELEASE, key, holdId, token, "-");
		}
		catch (LockLeaseLostException ex) {
			event(Event.FAIL, Event.RELEASE, key, holdId, token, "lease-lost");
		}
		catch (RuntimeException ex) {
			event(Event.INFO, Event.RELEASE, key, holdId, token, describe(ex));
		}
	}

	private void write(StoreClient store, String key, long token, String holdId) {
		event(Event.INVOKE, Event.WRITE, key, holdId, token, "-");
		try {
			String reply = store.write(key, token, holdId);
			if (reply.equals("OK")) {
				event(Event.OK, Event.WRITE, key, holdId, token, "-");
			}
			else {
				event(Event.FAIL, Event.WRITE, key, holdId, token, reply.replace(' ', '='));
			}
		}
		catch (IOException ex) {
			event(Event.INFO, Event.WRITE, key, holdId, token, describe(ex));
		}
	}

	private static String describe(Exception ex) {
		String kind = (ex instanceof LockException) ? ex.getClass().getSimpleName() : ex.getClass().getName();
		Throwable root = ex;
		while (root.getCause() != null) {
			root = root.getCause();
		}
		return (root == ex) ? kind : kind + "/" + root.getClass().getSimpleName();
	}

	private void event(String type, String op, String key, String holdId, long token, String detail) {
		// Flushed at once: an event still buffered when the worker is killed would be
		// lost, and a lost release
		// would make its hold look longer than it was.
		line(new Event(System.nanoTime(), this.config.name(), type, op, key, holdId, token, detail).format());
	}

	private void line(String line) {
		synchronized (this.out) {
			this.out.println(line);
			this.out.flush();
		}
	}

	/**
	 * One thread's connection to the fenced store.
	 */
	private static final class StoreClient implements AutoCloseable {

		private final Socket socket;

		private final BufferedReader in;

		private final OutputStream out;

		StoreClient(int port) throws IOException {
			this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
			this.socket.setTcpNoDelay(true);
			this.in = new BufferedReader(new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
			this.out = this.socket.getOutputStream();
		}

		String write(String key, long token, String holdId) throws IOException {
			this.out.write(("W " + key + " " + token + " " + holdId + "\n").getBytes(StandardCharsets.UTF_8));
			this.out.flush();
			String reply = this.in.readLine();
			if (reply == null) {
				throw new IOException("The store closed the connection");
			}
			return reply;
		}

		@Override
		public void close() throws IOException {
			this.socket.close();
		}

	}

}
