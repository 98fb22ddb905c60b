package io.github.distributedlock.sample;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled report that runs on one instance at a time: the others find the lock taken
 * and skip their turn instead of waiting.
 */
@Component
public class ReportJob {

	private static final Log logger = LogFactory.getLog(ReportJob.class);

	private final AtomicInteger runs = new AtomicInteger();

	private final SampleProperties properties;

	ReportJob(SampleProperties properties) {
		this.properties = properties;
	}

	@Scheduled(fixedDelayString = "${sample.report-interval:10s}")
	@DistributedLock(scope = "daily-report", expire = 5, waitTime = 0, onTimeout = OnTimeout.SKIP)
	public void run() {
		int run = this.runs.incrementAndGet();
		logger.info("Report run " + run + " on " + this.properties.instance());
	}

	int runs() {
		return this.runs.get();
	}

}
