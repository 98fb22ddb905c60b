package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderDirectory;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.PublishedLeader;
import io.github.distributedlock.redis.blocking.LockCommands;
import io.github.distributedlock.redis.core.LockKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LeaderDirectory} in Redis, beside the roles' locks of a
 * {@link RedisLockTemplate}: the leader writes {@code <token>:<since ms>:<instance>} to
 * the key {@code <role's lock key>:leader} with one {@code SET ... PX <lease>} when it is
 * granted and every third of the lease after that, on a thread of this directory. A read
 * takes the lock's token and that value, and shows the leader only if the tokens match,
 * so a value left by an earlier term, or by a leader that lost its lock, is never shown.
 * The value holds no lock owner. Ordinary locks send no command for it.
 * <p>
 * Thread-safe; {@link #close()} it with its template.
 */
public final class RedisLeaderDirectory implements LeaderDirectory, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLeaderDirectory.class);

	private final LockKeys keys;

	private final LockCommands commands;

	private final ScheduledThreadPoolExecutor writer;

	/**
	 * Create a directory for the roles' locks of a template.
	 * @param template the template that holds the roles' locks
	 */
	public RedisLeaderDirectory(RedisLockTemplate template) {
		this.keys = template.keys();
		this.commands = template.commands();
		this.writer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "distributed-lock-leaders");
			thread.setDaemon(true);
			return thread;
		});
		this.writer.setRemoveOnCancelPolicy(true);
		this.writer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	@Override
	public void publish(LeaderContext term, Duration lease) {
		Duration every = lease.dividedBy(3);
		try {
			this.writer.execute(() -> write(term, lease, every));
		}
		catch (RejectedExecutionException ex) {
			// Closed: the application is stopping.
		}
	}

	private void write(LeaderContext term, Duration lease, Duration every) {
		if (!term.isLeader()) {
			return;
		}
		LockName name = name(term.role());
		String value = term.fencingToken() + ":" + term.since().toEpochMilli() + ":" + term.instanceId();
		try {
			this.commands.write(name, LockKeys.leader(this.keys.lock(name)), value, lease);
		}
		catch (LockAccessException ex) {
			logger.debug("Leader role '" + term.role() + "': publishing the leader failed; trying again in " + every,
					ex);
		}
		try {
			this.writer.schedule(() -> write(term, lease, every), every.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed meanwhile.
		}
	}

	@Override
	public Optional<PublishedLeader> find(String role) {
		LockName name = name(role);
		String lockKey = this.keys.lock(name);
		List<@Nullable String> held = this.commands.ownerAndToken(name, lockKey);
		if (held == null || held.get(0) == null || held.get(0).isEmpty() || held.get(1) == null) {
			return Optional.empty();
		}
		String value = this.commands.read(name, LockKeys.leader(lockKey));
		return Optional.ofNullable(parse(role, value, held.get(1)));
	}

	/**
	 * Return the leader a value names, if it is the term of the given lock token.
	 */
	static @Nullable PublishedLeader parse(String role, @Nullable String value, String lockToken) {
		if (value == null) {
			return null;
		}
		int token = value.indexOf(':');
		int since = value.indexOf(':', token + 1);
		if (token <= 0 || since < 0 || !value.substring(0, token).equals(lockToken)) {
			return null;
		}
		try {
			return new PublishedLeader(role, value.substring(since + 1), Long.parseLong(lockToken),
					Instant.ofEpochMilli(Long.parseLong(value.substring(token + 1, since))));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static LockName name(String role) {
		return LockName.of(LeaderInitiator.LOCK_SCOPE, role);
	}

	/**
	 * Stop writing; a term still leading is no longer refreshed and its value expires.
	 */
	@Override
	public void close() {
		this.writer.shutdownNow();
	}

}
