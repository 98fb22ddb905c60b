package io.github.distributedlock.test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One socket speaking RESP2, the only Redis protocol code of the tests.
 * <p>
 * Replies are a {@link String} for simple and bulk strings, a {@link Long} for integers,
 * an unmodifiable {@code List} for arrays, {@code null} for nil, and a
 * {@link RedisCommandException} for an error: returned, not thrown, because the caller
 * decides whether it is fatal. Not thread-safe, except that {@link #send(String...)} may
 * be called while another thread waits in {@link #next()}; {@link RedisClient} serializes
 * access for {@link RedisServer#command(String...)}.
 */
public final class RespConnection implements AutoCloseable {

	/**
	 * The read timeout of connections opened by {@link RedisServer#connect()}.
	 */
	static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

	private static final byte[] CRLF = { '\r', '\n' };

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private boolean replyStarted;

	private RespConnection(Socket socket) throws IOException {
		this.socket = socket;
		this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
		this.out = new BufferedOutputStream(socket.getOutputStream());
	}

	/**
	 * Connect with the given connect and read timeout.
	 * @param host the host
	 * @param port the port
	 * @param timeout how long to wait for the connection and for each reply
	 * @return the connection, which the caller closes
	 * @throws UncheckedIOException if the server cannot be reached
	 */
	public static RespConnection open(String host, int port, Duration timeout) {
		try {
			return connect(host, port, timeout);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not connect to Redis at " + host + ":" + port, ex);
		}
	}

	static RespConnection connect(String host, int port, Duration timeout) throws IOException {
		int millis = Math.toIntExact(timeout.toMillis());
		Socket socket = new Socket();
		try {
			socket.setTcpNoDelay(true);
			socket.setSoTimeout(millis);
			socket.connect(new InetSocketAddress(host, port), millis);
			return new RespConnection(socket);
		}
		catch (IOException ex) {
			socket.close();
			throw ex;
		}
	}

	/**
	 * Send one command and read its reply.
	 * @param args the command name and its arguments
	 * @return the reply, an error included
	 * @throws UncheckedIOException if the connection fails or the reply does not come
	 * within the timeout
	 */
	public @Nullable Object command(String... args) {
		return pipeline(List.of(List.of(args))).get(0);
	}

	/**
	 * Send several commands in one write, so that nothing can run in between, then read
	 * all their replies.
	 * @param commands the commands, each its name and arguments
	 * @return their replies, in order
	 * @throws UncheckedIOException if the connection fails or a reply does not come
	 * within the timeout
	 */
	public List<@Nullable Object> pipeline(List<List<String>> commands) {
		try {
			write(commands);
			List<@Nullable Object> replies = new ArrayList<>(commands.size());
			for (int i = 0; i < commands.size(); i++) {
				replies.add(next());
			}
			return Collections.unmodifiableList(replies);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Send one command without reading its reply: for a subscriber or a monitor, whose
	 * replies come through {@link #next()}.
	 * @param args the command name and its arguments
	 * @throws UncheckedIOException if the connection fails
	 */
	public void send(String... args) {
		try {
			write(List.of(List.of(args)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Read the next reply or pushed message, as long as it takes (no read timeout from
	 * now on).
	 * @return the reply, an error included
	 * @throws IOException if the connection is closed
	 */
	public @Nullable Object awaitNext() throws IOException {
		this.socket.setSoTimeout(0);
		return next();
	}

	/**
	 * Send a command and read its reply, for {@link RedisClient}.
	 */
	@Nullable Object exchange(List<String> command) throws IOException {
		this.replyStarted = false;
		write(List.of(command));
		return next();
	}

	/**
	 * Whether any byte of the last reply arrived, which tells a server that dropped an
	 * idle connection before reading the command apart from one that failed while
	 * answering it.
	 */
	boolean replyStarted() {
		return this.replyStarted;
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// Nothing left to release.
		}
	}

	private void write(List<List<String>> commands) throws IOException {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream();
		for (List<String> command : commands) {
			writeAscii(buffer, "*" + command.size());
			for (String arg : command) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				writeAscii(buffer, "$" + bytes.length);
				buffer.writeBytes(bytes);
				buffer.writeBytes(CRLF);
			}
		}
		synchronized (this.out) {
			this.out.write(buffer.toByteArray());
			this.out.flush();
		}
	}

	private static void writeAscii(ByteArrayOutputStream buffer, String line) {
		buffer.writeBytes(line.getBytes(StandardCharsets.US_ASCII));
		buffer.writeBytes(CRLF);
	}

	private @Nullable Object next() throws IOException {
		int type = this.in.read();
		if (type == -1) {
			throw new EOFException("Connection closed by the server");
		}
		this.replyStarted = true;
		return readReply(type);
	}

	private @Nullable Object readReply(int type) throws IOException {
		return switch (type) {
			case '+' -> readLine();
			case '-' -> new RedisCommandException(readLine());
			case ':' -> Long.parseLong(readLine());
			case '$' -> readBulk(Integer.parseInt(readLine()));
			case '*' -> readArray(Integer.parseInt(readLine()));
			default -> throw new IOException("Unsupported reply type '" + (char) type + "': only RESP2 is supported");
		};
	}

	private @Nullable String readBulk(int length) throws IOException {
		if (length < 0) {
			return null;
		}
		byte[] bytes = this.in.readNBytes(length);
		if (bytes.length < length || this.in.read() != '\r' || this.in.read() != '\n') {
			throw new EOFException("Connection closed in the middle of a reply");
		}
		return new String(bytes, StandardCharsets.UTF_8);
	}

	private @Nullable List<@Nullable Object> readArray(int size) throws IOException {
		if (size < 0) {
			return null;
		}
		List<@Nullable Object> items = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			int type = this.in.read();
			if (type == -1) {
				throw new EOFException("Connection closed in the middle of a reply");
			}
			items.add(readReply(type));
		}
		return Collections.unmodifiableList(items);
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int next = this.in.read();
			if (next == -1) {
				throw new EOFException("Connection closed in the middle of a reply");
			}
			if (previous == '\r' && next == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(next);
			previous = next;
		}
	}

}
