package io.github.distributedlock.leader;

import java.time.Duration;
import java.util.Optional;

/**
 * Where each role's leader publishes who it is, so that every instance, a follower too,
 * can tell who leads. What is published names the instance and the term, never a lock
 * owner.
 * <p>
 * Thread-safe. A {@link LeaderInitiator} given one publishes each term it is granted;
 * {@code RedisLeaderDirectory} keeps it beside the role's lock in Redis.
 */
public interface LeaderDirectory {

	/**
	 * Keep a term published as its role's leader while it leads: written at once and
	 * again every third of the lease, until {@link LeaderContext#isLeader()} turns false.
	 * Returns at once, on any thread; a write that fails is tried again at the next turn.
	 * @param term the term just granted
	 * @param lease the lease of the role's lock: how long one write is kept
	 */
	void publish(LeaderContext term, Duration lease);

	/**
	 * Return the leader of a role, as its term published it, if that term still holds the
	 * role's lock.
	 * @param role the role
	 * @return the leader, or empty if the lock is free or its holder published nothing
	 * yet
	 * @throws io.github.distributedlock.LockAccessException if the directory cannot be
	 * read
	 */
	Optional<PublishedLeader> find(String role);

}
