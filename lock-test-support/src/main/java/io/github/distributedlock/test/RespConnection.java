package io.github.distributedlock.test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One socket speaking RESP2; not thread-safe, {@link RedisClient} serializes access.
 */
final class RespConnection implements Closeable {

	private static final byte[] CRLF = { '\r', '\n' };

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private boolean replyStarted;

	private RespConnection(Socket socket) throws IOException {
		this.socket = socket;
		this.in = new BufferedInputStream(socket.getInputStream());
		this.out = new BufferedOutputStream(socket.getOutputStream());
	}

	static RespConnection open(String host, int port, Duration timeout) throws IOException {
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
	 * Send a command and read its reply. An error reply is returned as a {@link RedisCommandException}, not thrown,
	 * because the caller decides whether it is fatal.
	 */
	@Nullable Object send(List<String> command) throws IOException {
		this.replyStarted = false;
		this.out.write(encode(command));
		this.out.flush();
		int type = this.in.read();
		if (type == -1) {
			throw new EOFException("Connection closed by the server");
		}
		this.replyStarted = true;
		return readReply(type);
	}

	/**
	 * Whether any byte of the last reply arrived, which tells a server that dropped an idle connection before
	 * reading the command apart from one that failed while answering it.
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

	private static byte[] encode(List<String> command) {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream();
		writeAscii(buffer, "*" + command.size());
		for (String arg : command) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			writeAscii(buffer, "$" + bytes.length);
			buffer.writeBytes(bytes);
			buffer.writeBytes(CRLF);
		}
		return buffer.toByteArray();
	}

	private static void writeAscii(ByteArrayOutputStream buffer, String line) {
		buffer.writeBytes(line.getBytes(StandardCharsets.US_ASCII));
		buffer.writeBytes(CRLF);
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
