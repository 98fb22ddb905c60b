package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

import io.github.distributedlock.LockRequest;

/**
 * Names the owners this template writes into locks: its secret instance id (128 random
 * bits, new at every start, so a restarted process never believes it holds an old lock)
 * plus the thread id, or a custom owner given by the caller, which can never be equal to
 * such a name.
 */
public final class LockOwners {

	private static final String CUSTOM_PREFIX = "custom:";

	private final String instanceId;

	public LockOwners() {
		byte[] id = new byte[16];
		new SecureRandom().nextBytes(id);
		this.instanceId = HexFormat.of().formatHex(id);
	}

	/**
	 * Return the owner of the current thread.
	 */
	public String current() {
		return this.instanceId + ":" + Thread.currentThread().getId();
	}

	/**
	 * Return the owner of one reactive subscription: like a thread's, with the
	 * subscription's number instead of the thread id.
	 */
	public String subscription(long number) {
		return this.instanceId + ":" + number;
	}

	/**
	 * Return the owner of a request: its custom owner, or the current thread's.
	 */
	public String of(LockRequest request) {
		String custom = request.owner();
		return (custom != null) ? custom(custom) : current();
	}

	/**
	 * Return the owner for a custom owner name; never equal to a generated owner, which
	 * is hex + ':' + a number.
	 */
	public static String custom(String owner) {
		return CUSTOM_PREFIX + owner;
	}

	/**
	 * Return the digest of an owner, as every lock key and message carries it (the
	 * scripts' {@code digest} in {@code lib.lua}): the SHA-1 of its UTF-8 bytes, in
	 * lowercase hex.
	 */
	public static String digest(String owner) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(owner.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-1", ex);
		}
	}

	/**
	 * Return whether an owner is a custom one, which may hold locks in other processes
	 * too.
	 */
	public static boolean isCustom(String owner) {
		return owner.startsWith(CUSTOM_PREFIX);
	}

}
