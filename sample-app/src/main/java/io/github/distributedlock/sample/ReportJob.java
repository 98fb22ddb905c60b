package io.github.distributedlock.sample;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.DistributedLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled report that runs once per period across all instances. Every instance fires
 * at the same wall-clock time (a cron schedule, not a fixed delay from each one's start).
 * The first to take the lock runs the report; the others find the lock taken and skip,
 * which is what {@code @DistributedLock} does on a {@code @Scheduled} method that sets no
 * wait. The minimum hold keeps the lock taken for part of the period after a report that
 * ends in milliseconds, so that an instance firing a little later, or with its clock a
 * little behind, skips too instead of running the same period again.
 */
@Component
public class ReportJob {

	private static final Log logger = LogFactory.getLog(ReportJob.class);

	private final AtomicInteger runs = new AtomicInteger();

	private final SampleProperties properties;

	ReportJob(SampleProperties properties) {
		this.properties = properties;
	}

	@Scheduled(cron = "${sample.report-cron}")
	@DistributedLock(scope = "daily-report", expire = 60, holdAtLeast = "${sample.report-hold-at-least}")
	public void run() {
		int run = this.runs.incrementAndGet();
		logger.info("Report run " + run + " on " + this.properties.instance() + " at " + System.currentTimeMillis());
	}

	int runs() {
		return this.runs.get();
	}

}
