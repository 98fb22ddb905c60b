package io.github.distributedlock.test;

/**
 * The address of one server of a topology, such as a Sentinel that clients are configured
 * with.
 *
 * @param host the host, an IP address for launched servers
 * @param port the port
 */
public record HostAndPort(String host, int port) {

	/**
	 * Create an address, rejecting a blank host or a port outside 1 to 65535.
	 * @param host the host
	 * @param port the port
	 */
	public HostAndPort {
		if (host.isBlank()) {
			throw new IllegalArgumentException("Host must not be blank (port " + port + ")");
		}
		if (port < 1 || port > 65535) {
			throw new IllegalArgumentException("Port must be between 1 and 65535, was " + port + " for " + host);
		}
	}

	/**
	 * Return the address of a server.
	 * @param server the server
	 * @return its host and port
	 */
	public static HostAndPort of(RedisServer server) {
		return new HostAndPort(server.host(), server.port());
	}

	/**
	 * Return {@code host:port}, the form Redis clients and {@code redis-cli} accept.
	 * @return the address
	 */
	@Override
	public String toString() {
		return this.host + ":" + this.port;
	}

}
