package io.github.distributedlock.test;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A Redis server that runs outside this JVM's control, reached through a {@code redis://}
 * URI such as the {@code REDIS_URL} environment variable.
 * <p>
 * It is not managed, so it cannot be stopped or paused, and {@link #close()} only
 * disconnects. {@link #flushAll()} deletes everything on it, so point it at a server
 * dedicated to tests.
 */
public final class ExternalRedis implements RedisServer {

	private static final int DEFAULT_PORT = 6379;

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final String uri;

	private final String host;

	private final int port;

	private final RedisClient client;

	private ExternalRedis(String uri, String host, int port, RedisClient client) {
		this.uri = uri;
		this.host = host;
		this.port = port;
		this.client = client;
	}

	/**
	 * Connect to the server at {@code redis://[user:password@]host[:port][/database]},
	 * authenticating when the URI has a password and selecting the database when it has
	 * one.
	 * @param uri the URI
	 * @return the server, connected lazily on the first command
	 * @throws IllegalArgumentException if the URI is malformed or uses another scheme
	 * (TLS is not supported)
	 */
	public static ExternalRedis connect(String uri) {
		URI parsed = parse(uri);
		String host = parsed.getHost();
		if (!"redis".equalsIgnoreCase(parsed.getScheme()) || host == null) {
			throw new IllegalArgumentException(
					"Expected redis://[user:password@]host[:port][/database] but got '" + redact(uri) + "'");
		}
		int port = (parsed.getPort() != -1) ? parsed.getPort() : DEFAULT_PORT;
		String userInfo = parsed.getUserInfo();
		String username = null;
		String password = null;
		if (userInfo != null) {
			int colon = userInfo.indexOf(':');
			username = (colon > 0) ? userInfo.substring(0, colon) : null;
			password = (colon >= 0) ? userInfo.substring(colon + 1) : userInfo;
		}
		int database = database(parsed, uri);
		RedisClient client = new RedisClient(host, port, TIMEOUT, RedisClient.handshake(username, password, database));
		return new ExternalRedis(uri, host, port, client);
	}

	@Override
	public String host() {
		return this.host;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public String uri() {
		return this.uri;
	}

	@Override
	public @Nullable Object command(String... args) {
		return this.client.command(args);
	}

	@Override
	public RespConnection connect() {
		return this.client.open();
	}

	@Override
	public void close() {
		this.client.close();
	}

	@Override
	public String toString() {
		return "ExternalRedis[" + this.host + ":" + this.port + "]";
	}

	private static URI parse(String uri) {
		try {
			return new URI(uri);
		}
		catch (URISyntaxException ex) {
			throw new IllegalArgumentException("Malformed Redis URI '" + redact(uri) + "': " + ex.getReason());
		}
	}

	private static int database(URI parsed, String uri) {
		String path = parsed.getPath();
		if (path == null || path.isEmpty() || path.equals("/")) {
			return 0;
		}
		try {
			return Integer.parseInt(path.substring(1));
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("Expected a database number after the port in '" + redact(uri) + "'");
		}
	}

	private static String redact(String uri) {
		return uri.replaceFirst("//[^@/]*@", "//***@");
	}

}
