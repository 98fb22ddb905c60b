package io.github.distributedlock.chaos.support;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A raw RESP2 connection, for what the test-support client does not do: log in as another ACL user, and send
 * several commands in one write so that nothing can happen in between (a {@code MULTI} block, for example).
 * Error replies are returned as {@link Error} values, not thrown. Not thread-safe.
 */
public final class RespSocket implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private RespSocket(Socket socket) throws IOException {
		this.socket = socket;
		this.in = new BufferedInputStream(socket.getInputStream());
		this.out = socket.getOutputStream();
	}

	/**
	 * Connect to a Redis on loopback.
	 * @param port the port
	 * @return the connection
	 */
	public static RespSocket open(int port) {
		try {
			Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
			socket.setSoTimeout(10_000);
			socket.setTcpNoDelay(true);
			return new RespSocket(socket);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Send one command and read its reply.
	 * @param args the command and its arguments
	 * @return the reply: a String, a Long, a List, an {@link Error}, or {@code null}
	 */
	public @Nullable Object command(String... args) {
		return pipeline(List.of(List.of(args))).get(0);
	}

	/**
	 * Send several commands in one write, then read all their replies.
	 * @param commands the commands
	 * @return their replies, in order
	 */
	public List<@Nullable Object> pipeline(List<List<String>> commands) {
		try {
			ByteArrayOutputStream buffer = new ByteArrayOutputStream();
			for (List<String> command : commands) {
				ascii(buffer, "*" + command.size());
				for (String arg : command) {
					byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
					ascii(buffer, "$" + bytes.length);
					buffer.writeBytes(bytes);
					buffer.writeBytes(new byte[] { '\r', '\n' });
				}
			}
			this.out.write(buffer.toByteArray());
			this.out.flush();
			List<@Nullable Object> replies = new ArrayList<>();
			for (int i = 0; i < commands.size(); i++) {
				replies.add(read());
			}
			return replies;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Send one command without reading its reply: for a subscriber or a monitor, whose replies come through
	 * {@link #next()}.
	 * @param args the command and its arguments
	 */
	public void send(String... args) {
		try {
			ByteArrayOutputStream buffer = new ByteArrayOutputStream();
			ascii(buffer, "*" + args.length);
			for (String arg : args) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				ascii(buffer, "$" + bytes.length);
				buffer.writeBytes(bytes);
				buffer.writeBytes(new byte[] { '\r', '\n' });
			}
			synchronized (this.out) {
				this.out.write(buffer.toByteArray());
				this.out.flush();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Read the next reply or pushed message, waiting as long as it takes (no read timeout).
	 * @return the reply, as for {@link #command}
	 * @throws IOException if the connection is closed
	 */
	public @Nullable Object next() throws IOException {
		this.socket.setSoTimeout(0);
		return read();
	}

	private static void ascii(ByteArrayOutputStream buffer, String line) {
		buffer.writeBytes((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
	}

	private @Nullable Object read() throws IOException {
		int type = this.in.read();
		if (type < 0) {
			throw new EOFException("Connection closed");
		}
		String line = line();
		return switch (type) {
			case '+' -> line;
			case '-' -> new Error(line);
			case ':' -> Long.parseLong(line);
			case '$' -> bulk(Integer.parseInt(line));
			case '*' -> array(Integer.parseInt(line));
			default -> throw new IOException("Unexpected reply type " + (char) type);
		};
	}

	private @Nullable String bulk(int length) throws IOException {
		if (length < 0) {
			return null;
		}
		byte[] bytes = this.in.readNBytes(length + 2);
		return new String(bytes, 0, length, StandardCharsets.UTF_8);
	}

	private @Nullable List<@Nullable Object> array(int size) throws IOException {
		if (size < 0) {
			return null;
		}
		List<@Nullable Object> items = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			items.add(read());
		}
		return items;
	}

	private String line() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int next = this.in.read();
			if (next < 0) {
				throw new EOFException("Connection closed in a reply");
			}
			if (previous == '\r' && next == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(next);
			previous = next;
		}
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
	}

	/**
	 * An error reply.
	 *
	 * @param message the message, such as {@code NOPERM ...}
	 */
	public record Error(String message) {
	}

}
