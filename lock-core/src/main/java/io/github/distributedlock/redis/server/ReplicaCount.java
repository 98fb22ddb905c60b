package io.github.distributedlock.redis.server;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.redis.core.Grant;

/**
 * Counts the replicas that have a hold just written: the one part of the replica check
 * ({@code driver/ReplicaWait}) that talks to Redis other than through the driver's port.
 * The templates count with Redis {@code WAIT} ({@link ReplicaAcknowledgements}), the
 * simulation on its model's replica. Thread-safe.
 */
@FunctionalInterface
public interface ReplicaCount {

	/**
	 * Count the replicas that acknowledged the hold, waiting for them at most the
	 * template's replica timeout. The count may write the hold's lease again, as long as
	 * the grant wrote it, never shorter.
	 * @param hold the hold; its {@code sentNanos} was read before its script was sent
	 * @return completed with how many replicas acknowledged the hold, or -1 if the server
	 * no longer has it; failed with a {@code LockException} naming the lock if Redis did
	 * not answer
	 */
	CompletableFuture<Long> acknowledged(Grant hold);

}
