package io.github.distributedlock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a hold is released or extended after it stopped being the lock's owner: its
 * lease ran out, or the lock was force-released and maybe taken by someone else. Also
 * thrown by the templates when the lease ran out or was found lost while the work ran and
 * the release could not tell more (see {@link LeaseLossPolicy}).
 * <p>
 * The work protected by the lock may have overlapped with another holder's. Writes fenced
 * with {@link LockContext#fencingToken()} are safe from that; others are not.
 */
public class LockLeaseLostException extends LockException {

	private final long fencingToken;

	public LockLeaseLostException(LockName lockName, long fencingToken, String what) {
		this(lockName, fencingToken, what, null);
	}

	public LockLeaseLostException(LockName lockName, long fencingToken, String what, @Nullable Throwable cause) {
		super(lockName,
				what + " (fencing token " + fencingToken
						+ "): the lease ran out or the lock was force-released, so the protected work may have "
						+ "overlapped with another holder's. Use a longer lease, extend it while working, "
						+ "or fence writes with the token",
				cause);
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the fencing token of the lost hold.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
