/**
 * Leader election on a distributed lock: one
 * {@link io.github.distributedlock.leader.LeaderInitiator} per role holds the role's lock
 * while this instance leads, revokes leadership before the lease can end, and runs
 * {@link io.github.distributedlock.leader.LeaderOnly @LeaderOnly} methods only while it
 * leads.
 */
@NullMarked
package io.github.distributedlock.leader;

import org.jspecify.annotations.NullMarked;
