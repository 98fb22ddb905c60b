package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/**
 * What a {@link DistributedLock} leaves unset means for one method. On a method that
 * Spring's {@link Scheduled @Scheduled} runs, a taken lock means that another instance
 * runs the job now, so an unset wait time is zero and an unset {@code onTimeout} is
 * {@link OnTimeout#SKIP}, as ShedLock skips a locked task: the instances don't queue up
 * to run the job again one after the other. On any other method the wait time comes from
 * the template's defaults and {@code onTimeout} is {@link OnTimeout#THROW}.
 */
final class ScheduledMethodDefaults {

	private static final ScheduledMethodDefaults SCHEDULED = new ScheduledMethodDefaults(true);

	private static final ScheduledMethodDefaults OTHER = new ScheduledMethodDefaults(false);

	private final boolean scheduled;

	private ScheduledMethodDefaults(boolean scheduled) {
		this.scheduled = scheduled;
	}

	/**
	 * Return the defaults of a method.
	 * @param method the most specific method of the target class
	 */
	static ScheduledMethodDefaults of(Method method) {
		boolean scheduled = AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
				|| AnnotatedElementUtils.hasAnnotation(method, Schedules.class);
		return scheduled ? SCHEDULED : OTHER;
	}

	/**
	 * Return whether the method is a scheduled job.
	 */
	boolean isScheduled() {
		return this.scheduled;
	}

	/**
	 * Return the wait time when the annotation sets none.
	 * @return the wait time, or {@code null} for the template's default
	 */
	@Nullable Duration waitTime() {
		return this.scheduled ? Duration.ZERO : null;
	}

	/**
	 * Return what to do on timeout when the annotation does not say.
	 */
	OnTimeout onTimeout() {
		return this.scheduled ? OnTimeout.SKIP : OnTimeout.THROW;
	}

}
