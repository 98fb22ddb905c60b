package io.github.distributedlock.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * Free ports on 127.0.0.1, the only address launched servers bind to.
 */
final class LoopbackPorts {

	static final String HOST = "127.0.0.1";

	/**
	 * The port a system Redis usually listens on, which tests must never touch.
	 */
	private static final int SYSTEM_REDIS_PORT = 6379;

	private static final int CLUSTER_BUS_OFFSET = 10000;

	private static final int MAX_PORT = 65535;

	private static final InetAddress LOOPBACK;

	static {
		try {
			LOOPBACK = InetAddress.getByAddress(HOST, new byte[] { 127, 0, 0, 1 });
		}
		catch (UnknownHostException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private LoopbackPorts() {
	}

	/**
	 * Return a port that was free a moment ago. Another process may take it before Redis
	 * binds it, so callers retry.
	 */
	static int findFree() {
		for (int attempt = 0; attempt < 10; attempt++) {
			try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
				int port = socket.getLocalPort();
				if (port != SYSTEM_REDIS_PORT) {
					return port;
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not find a free port on " + HOST, ex);
			}
		}
		throw new IllegalStateException("Could not find a free port on " + HOST);
	}

	/**
	 * Return a free port whose cluster bus port (the port plus 10000, fixed before Redis
	 * 7.0) is free as well.
	 */
	static int findFreeWithBus() {
		for (int attempt = 0; attempt < 50; attempt++) {
			int port = findFree();
			if (port + CLUSTER_BUS_OFFSET <= MAX_PORT && isFree(port + CLUSTER_BUS_OFFSET)) {
				return port;
			}
		}
		throw new IllegalStateException("Could not find a free port on " + HOST + " with a free port "
				+ CLUSTER_BUS_OFFSET + " above it for the cluster bus");
	}

	/**
	 * Return whether a server could bind the port now. Connections in TIME_WAIT do not
	 * count, as Redis binds with SO_REUSEADDR too.
	 */
	static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress(LOOPBACK, port), 1);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	static void awaitFree(int port, Duration timeout) {
		if (!TetheredProcess.await(() -> isFree(port), timeout)) {
			throw new IllegalStateException(
					"Port " + port + " on " + HOST + " is still in use after " + timeout.toSeconds() + " s");
		}
	}

}
