package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What a {@code @Scheduled} job that skips when its lock is taken does when Redis cannot
 * be reached: it skips that trigger too, and says so in one WARN line per outage, not a
 * stack trace at every trigger. Later failures of the same outage go to DEBUG, and the
 * first trigger that reaches Redis again logs at INFO. Thread-safe.
 */
final class ScheduledOutages {

	private static final Log logger = LogFactory.getLog(ScheduledOutages.class);

	private final Map<Method, Integer> skipped = new ConcurrentHashMap<>();

	/**
	 * Record a trigger that could not reach Redis.
	 * @param method the job
	 * @param described the job as messages name it
	 * @param locks the locks it needed
	 * @param ex why Redis could not be reached
	 */
	void failed(Method method, String described, List<LockName> locks, LockAccessException ex) {
		int count = this.skipped.merge(method, 1, Integer::sum);
		String message = "Skipped " + described + ": could not reach Redis for lock '"
				+ locks.stream().map(LockName::toString).collect(Collectors.joining("', '")) + "' (" + ex.getMessage()
				+ ")";
		if (count == 1) {
			logger.warn(message + ". Later triggers that fail the same way are logged at DEBUG until one reaches "
					+ "Redis again");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(message + "; " + count + " triggers skipped so far", ex);
		}
	}

	/**
	 * Return whether any job skipped a trigger since it last reached Redis: a read of an
	 * empty map on every call, and nothing more, while Redis is up.
	 */
	boolean hasSkips() {
		return !this.skipped.isEmpty();
	}

	/**
	 * Record a trigger that reached Redis.
	 * @param method the job
	 * @param described the job as messages name it
	 */
	void reached(Method method, String described) {
		Integer count = this.skipped.remove(method);
		if (count != null) {
			logger.info(described + " reached Redis again after " + count + " skipped "
					+ ((count == 1) ? "trigger" : "triggers"));
		}
	}

}
