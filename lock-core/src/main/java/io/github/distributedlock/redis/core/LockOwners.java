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
 * plus the thread id, or a custom owner given by the caller, never equal to such a name.
 */
public final class LockOwners {

	// acquire-fair.lua reads it too: a custom owner's acquisitions share its fair turn.
	private static final String CUSTOM_PREFIX = "custom:";

	private final String instanceId;

	public LockOwners() {
		byte[] id = new byte[16];
		new SecureRandom().nextBytes(id);
		this.instanceId = HexFormat.of().formatHex(id);
	}

	public String current() {
		return this.instanceId + ":" + Thread.currentThread().getId();
	}

	/** Return the owner of one reactive subscription, numbered like a thread. */
	public String subscription(long number) {
		return this.instanceId + ":" + number;
	}

	/**
	 * Return the owner of one cohort (docs/design/cohorting.md, rule 1): no thread,
	 * subscription or custom owner has this form.
	 */
	public String cohort(long number) {
		return this.instanceId + ":cohort:" + number;
	}

	public String of(LockRequest request) {
		String custom = request.owner();
		return (custom != null) ? custom(custom) : current();
	}

	/** Return the owner for a custom name: never equal to a generated owner. */
	public static String custom(String owner) {
		return CUSTOM_PREFIX + owner;
	}

	/**
	 * Return the digest of an owner, as every lock key and message carries it: the same
	 * as the scripts' {@code digest} in {@code lib.lua} (SHA-1 of UTF-8, lowercase hex).
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

	/** Return whether an owner is custom, one that may hold locks in other processes. */
	public static boolean isCustom(String owner) {
		return owner.startsWith(CUSTOM_PREFIX);
	}

}
