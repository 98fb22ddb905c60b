package io.github.distributedlock.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resource the locks protect: a tiny line-protocol server in the test JVM, outside
 * the chaos, that accepts a write only if its fencing token is at least the highest it
 * has seen for the key, and records every decision.
 * <p>
 * A worker sends {@code W <key> <token> <holdId>} and gets {@code OK} or
 * {@code STALE <highest>}.
 */
final class FencedStore implements AutoCloseable {

	private final ServerSocket server;

	private final Map<String, Long> highest = new HashMap<>();

	private final List<StoreWrite> writes = new ArrayList<>();

	private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	private FencedStore(ServerSocket server) {
		this.server = server;
		Thread acceptor = new Thread(this::accept, "fenced-store");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	static FencedStore start() throws IOException {
		return new FencedStore(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Return every write received so far, in the order the store decided on them.
	 */
	synchronized List<StoreWrite> writes() {
		return List.copyOf(this.writes);
	}

	synchronized StoreWrite write(String key, long token, String holdId) {
		long top = this.highest.getOrDefault(key, Long.MIN_VALUE);
		boolean accepted = token >= top;
		if (accepted) {
			this.highest.put(key, token);
		}
		StoreWrite write = new StoreWrite(System.nanoTime(), key, token, holdId, accepted, Math.max(top, token));
		this.writes.add(write);
		return write;
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket socket = this.server.accept();
				this.connections.add(socket);
				Thread serving = new Thread(() -> serve(socket), "fenced-store-connection");
				serving.setDaemon(true);
				serving.start();
			}
			catch (IOException ex) {
				// Closed.
			}
		}
	}

	private void serve(Socket socket) {
		try (socket;
				BufferedReader in = new BufferedReader(
						new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
			socket.setTcpNoDelay(true);
			OutputStream out = socket.getOutputStream();
			String line;
			while ((line = in.readLine()) != null) {
				String[] parts = line.split(" ");
				String reply;
				if (parts.length == 4 && parts[0].equals("W")) {
					StoreWrite write = write(parts[1], Long.parseLong(parts[2]), parts[3]);
					reply = write.accepted() ? "OK" : "STALE " + write.highest();
				}
				else {
					reply = "ERR bad request";
				}
				out.write((reply + "\n").getBytes(StandardCharsets.UTF_8));
				out.flush();
			}
		}
		catch (IOException | RuntimeException ex) {
			// The worker went away (killed, or stopped).
		}
		finally {
			this.connections.remove(socket);
		}
	}

	@Override
	public void close() throws IOException {
		this.closed = true;
		this.server.close();
		for (Socket socket : this.connections) {
			socket.close();
		}
	}

	/**
	 * One write as the store decided on it.
	 *
	 * @param nanos when the store decided
	 * @param key the key written
	 * @param token the writer's fencing token
	 * @param holdId the writer's acquisition
	 * @param accepted whether the write was accepted
	 * @param highest the highest token seen for the key after this write
	 */
	record StoreWrite(long nanos, String key, long token, String holdId, boolean accepted, long highest) {
	}

}
