package io.github.distributedlock.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on loopback between one worker and Redis, which a test can slow down, cut
 * and heal, or whose connections it can drop.
 * <p>
 * A cut is a partition, not a crash: connections stay open and new ones are accepted, but
 * nothing is forwarded until {@link #heal()}, and then everything held back is delivered,
 * as TCP retransmission would after a network partition heals. Latency delays every chunk
 * in each direction without limiting throughput.
 * <p>
 * The proxy follows the commands and replies of each connection ({@link RespFrames}), so
 * that it can drop the reply to one command after Redis ran it
 * ({@link #dropReplyOnNext}), or hold it back, then drop or deliver it
 * ({@link ReplyDrop#heldFor}, {@link ReplyDrop#delayedBy}).
 */
final class ChaosProxy implements AutoCloseable {

	private static final int BUFFER = 16 * 1024;

	private final ServerSocket server;

	private volatile InetSocketAddress target;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private final Object gate = new Object();

	private volatile boolean cut;

	private volatile boolean repliesHeld;

	private volatile long latencyNanos;

	private volatile long pubSubLatencyNanos;

	private final Set<Socket> pubSubSockets = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	private volatile byte @Nullable [] dropTrigger;

	private final AtomicReference<@Nullable ReplyDrop> replyDrop = new AtomicReference<>();

	private ChaosProxy(ServerSocket server, InetSocketAddress target) {
		this.server = server;
		this.target = target;
		daemon("proxy-accept-" + server.getLocalPort(), this::accept).start();
	}

	/**
	 * Start a proxy on a free loopback port in front of a Redis on loopback.
	 */
	static ChaosProxy start(int targetPort) throws IOException {
		InetAddress loopback = InetAddress.getLoopbackAddress();
		return new ChaosProxy(new ServerSocket(0, 50, loopback), new InetSocketAddress(loopback, targetPort));
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Delay every chunk by this much, in each direction.
	 */
	void latency(Duration latency) {
		this.latencyNanos = latency.toNanos();
	}

	/**
	 * Delay what Redis sends on pub/sub connections (those that sent {@code SUBSCRIBE})
	 * by this much more: release messages arrive late, everything else on time.
	 */
	void pubSubLatency(Duration latency) {
		this.pubSubLatencyNanos = latency.toNanos();
	}

	/**
	 * Close the pub/sub connections only, both sides: whatever they had not delivered yet
	 * is lost.
	 * @return the number of sockets closed
	 */
	int dropPubSubConnections() {
		int dropped = 0;
		for (Socket socket : this.pubSubSockets) {
			closeQuietly(socket);
			dropped++;
		}
		return dropped;
	}

	/**
	 * Stop forwarding anything, in both directions, until {@link #heal()}.
	 */
	void cut() {
		this.cut = true;
	}

	void heal() {
		synchronized (this.gate) {
			this.cut = false;
			this.gate.notifyAll();
		}
	}

	/**
	 * Hold back what Redis answers on every connection but the pub/sub ones, until
	 * {@link #releaseReplies()}: commands still reach Redis, which runs them, and their
	 * replies come late, or never if the client gives up on them first.
	 */
	void holdReplies() {
		this.repliesHeld = true;
	}

	void releaseReplies() {
		synchronized (this.gate) {
			this.repliesHeld = false;
			this.gate.notifyAll();
		}
	}

	/**
	 * Close every connection through the proxy, both sides, as a crashed middlebox would.
	 * @return the number of sockets closed
	 */
	int dropConnections() {
		int dropped = 0;
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
			dropped++;
		}
		return dropped;
	}

	/**
	 * Drop every connection, once, the moment a client sends this command, instead of
	 * forwarding it: a connection lost exactly between two commands.
	 * @param command the command name, as the client spells it
	 */
	void dropConnectionsOnNext(String command) {
		this.dropTrigger = ("\r\n" + command + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
	}

	/**
	 * Forward the next command of this name that any client sends, once, let Redis run it
	 * and answer, then drop that reply and close the client's connection (after the
	 * replies to its earlier commands), as a connection lost after the command ran and
	 * before its reply arrived. Commands the client sent after it are not forwarded.
	 * Lettuce reconnects and sends the command again, so that Redis runs it twice.
	 * @param command the command name, in any case, such as {@code EVALSHA}
	 * @return the fault, to wait for and to learn which command it hit
	 */
	ReplyDrop dropReplyOnNext(String command) {
		return arm(new ReplyDrop(command));
	}

	/**
	 * Arm a fault built with {@link ReplyDrop}'s options (the command's first argument,
	 * steps run before Redis gets the command or before the client can re-send it), as
	 * {@link #dropReplyOnNext(String)} does; it replaces a fault armed before.
	 * @param drop the fault
	 * @return the fault
	 */
	ReplyDrop arm(ReplyDrop drop) {
		this.replyDrop.set(drop);
		return drop;
	}

	/**
	 * Disarm a fault that has not hit a command yet, so that it cannot hit a later one.
	 * @param drop the fault
	 */
	void cancel(ReplyDrop drop) {
		this.replyDrop.compareAndSet(drop, null);
	}

	/**
	 * Send new connections to another Redis on loopback; open connections keep theirs.
	 * With {@link #dropConnectionsOnNext(String)}, a client that reconnects finds another
	 * server, as after a failover.
	 * @param port the other server's port
	 */
	void retarget(int port) {
		this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
	}

	@Override
	public void close() {
		this.closed = true;
		heal();
		releaseReplies();
		closeQuietly(this.server);
		dropConnections();
	}

	private void accept() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				return;
			}
			Socket upstream = new Socket();
			try {
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				upstream.connect(this.target, 5000);
			}
			catch (IOException ex) {
				// Redis is down: the client sees its connection closed, as if refused.
				System.err.println("Proxy " + port() + " could not reach " + this.target + ": " + ex);
				closeQuietly(client);
				closeQuietly(upstream);
				continue;
			}
			this.sockets.add(client);
			this.sockets.add(upstream);
			ProxiedConnection link = new ProxiedConnection();
			pipe(client, upstream, "up", link);
			pipe(upstream, client, "down", link);
		}
	}

	/**
	 * Forward one direction with a reader and a writer thread, so that latency delays
	 * chunks without serializing them.
	 */
	private void pipe(Socket from, Socket to, String direction, ProxiedConnection link) {
		AtomicBoolean pubSub = link.pubSub;
		BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
		String name = "proxy-" + this.server.getLocalPort() + "-" + direction;
		daemon(name + "-read", () -> {
			byte[] buffer = new byte[BUFFER];
			try {
				InputStream in = from.getInputStream();
				int read;
				while ((read = in.read(buffer)) >= 0) {
					byte[] chunk = Arrays.copyOf(buffer, read);
					if (direction.equals("up") && triggersDrop(chunk)) {
						dropConnections();
						break;
					}
					ProxiedConnection.@Nullable Forward forward = null;
					if (direction.equals("up")) {
						chunk = link.fromClient(chunk, this.replyDrop);
						ReplyDrop unsent = link.unsent();
						if (unsent != null) {
							// What came before the command goes on; then the connection
							// hangs, and drops.
							queue.add(new Chunk(System.nanoTime() + this.latencyNanos, chunk, null, false));
							sleepQuietly(unsent.hold());
							unsent.dropped();
							break;
						}
					}
					else {
						forward = link.fromRedis(chunk);
					}
					if (direction.equals("up") && !pubSub.get() && isSubscribe(chunk)) {
						pubSub.set(true);
						this.pubSubSockets.add(from);
						this.pubSubSockets.add(to);
					}
					long delay = this.latencyNanos;
					if (direction.equals("down") && pubSub.get()) {
						delay += this.pubSubLatencyNanos;
					}
					long now = System.nanoTime();
					if (forward == null) {
						queue.add(new Chunk(now + delay, chunk, null, false));
						continue;
					}
					ReplyDrop fault = forward.fault();
					queue.add(new Chunk(now + delay, Arrays.copyOf(chunk, forward.now()), null, false));
					if (fault != null && fault.delivers()) {
						// The reply and what follows it, late; later chunks queue behind.
						fault.answered();
						queue.add(new Chunk(forward.dueNanos() + delay,
								Arrays.copyOfRange(chunk, forward.now(), chunk.length), fault, false));
					}
					else if (fault != null && forward.close()) {
						// Redis has run the command: its reply is dropped with the
						// connection, once held back as long as the fault says.
						queue.add(new Chunk(Math.max(now, forward.dueNanos()) + delay, new byte[0], fault, true));
						break;
					}
				}
			}
			catch (IOException ex) {
				// Closed by a drop, or by the other side.
			}
			queue.add(Chunk.END);
		}).start();
		daemon(name + "-write", () -> {
			try {
				OutputStream out = to.getOutputStream();
				while (true) {
					Chunk chunk = queue.take();
					if (chunk == Chunk.END) {
						break;
					}
					long delay = chunk.deliverAtNanos() - System.nanoTime();
					if (delay > 0) {
						TimeUnit.NANOSECONDS.sleep(delay);
					}
					awaitHealed();
					if (direction.equals("down") && !pubSub.get()) {
						awaitRepliesReleased();
					}
					out.write(chunk.bytes());
					out.flush();
					ReplyDrop fault = chunk.fault();
					if (fault != null) {
						if (fault.delivers()) {
							fault.delivering(chunk.bytes());
						}
						link.replyDropped(fault);
					}
					if (chunk.thenClose()) {
						break;
					}
				}
			}
			catch (IOException | InterruptedException ex) {
				// Closed.
			}
			// A side that ended ends the connection, as a TCP proxy does.
			closeQuietly(from);
			closeQuietly(to);
			this.sockets.remove(from);
			this.sockets.remove(to);
			this.pubSubSockets.remove(from);
			this.pubSubSockets.remove(to);
		}).start();
	}

	private static boolean isSubscribe(byte[] chunk) {
		String text = new String(chunk, java.nio.charset.StandardCharsets.ISO_8859_1)
			.toUpperCase(java.util.Locale.ROOT);
		return text.contains("SUBSCRIBE\r\n");
	}

	private boolean triggersDrop(byte[] chunk) {
		byte[] trigger = this.dropTrigger;
		if (trigger == null) {
			return false;
		}
		String text = new String(chunk, java.nio.charset.StandardCharsets.ISO_8859_1);
		if (!text.contains(new String(trigger, java.nio.charset.StandardCharsets.ISO_8859_1))) {
			return false;
		}
		this.dropTrigger = null;
		return true;
	}

	private void awaitHealed() throws InterruptedException {
		synchronized (this.gate) {
			while (this.cut) {
				this.gate.wait();
			}
		}
	}

	private void awaitRepliesReleased() throws InterruptedException {
		synchronized (this.gate) {
			while (this.repliesHeld) {
				this.gate.wait();
			}
		}
	}

	private static void sleepQuietly(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static Thread daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	private static void closeQuietly(java.io.Closeable closeable) {
		try {
			closeable.close();
		}
		catch (IOException ex) {
			// Already closed.
		}
	}

	/**
	 * Bytes to deliver at a time; the fault is told when a reply it held back was
	 * delivered or dropped.
	 */
	private record Chunk(long deliverAtNanos, byte[] bytes, @Nullable ReplyDrop fault, boolean thenClose) {

		static final Chunk END = new Chunk(0, new byte[0], null, false);

	}

}
