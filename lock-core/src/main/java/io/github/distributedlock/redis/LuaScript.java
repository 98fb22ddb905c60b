package io.github.distributedlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.springframework.data.redis.connection.ReturnType;

/**
 * One of the engine's Lua scripts: its text and SHA-1, read once from the {@code .lua}
 * resource next to this class. Loading the text once matters: a script read through a
 * {@code Resource} checks the resource's modification time on every call.
 */
final class LuaScript {

	private final String name;

	private final byte[] text;

	private final byte[] sha1;

	private final ReturnType returnType;

	private LuaScript(String name, byte[] text, ReturnType returnType) {
		this.name = name;
		this.text = text;
		this.sha1 = sha1(text);
		this.returnType = returnType;
	}

	static LuaScript load(String name, ReturnType returnType) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + name + " is missing from the class path");
			}
			return new LuaScript(name, in.readAllBytes(), returnType);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + name, ex);
		}
	}

	private static byte[] sha1(byte[] text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text);
			return HexFormat.of().formatHex(digest).getBytes(StandardCharsets.US_ASCII);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

	String name() {
		return this.name;
	}

	byte[] text() {
		return this.text;
	}

	byte[] sha1() {
		return this.sha1;
	}

	ReturnType returnType() {
		return this.returnType;
	}

}
