package com.example.locks;

import java.util.List;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LeaseLossPolicy;
import io.github.distributedlock.LockReleaseFailedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

@Component
class LedgerSync {

	private static final Log logger = LogFactory.getLog(LedgerSync.class);

	// Interrupted as soon as this instance finds its lock lost, so that it stops writing
	// while another instance may hold the lock; the caller gets LockLeaseLostException.
	@DistributedLock(scope = "ledger-sync", onLeaseLost = LeaseLossPolicy.INTERRUPT)
	public int sync(List<String> entries) throws InterruptedException {
		int written = 0;
		for (String entry : entries) {
			if (Thread.interrupted()) {
				throw new InterruptedException("stopped after " + written + " entries");
			}
			write(entry);
			written++;
		}
		return written;
	}

	// The work ended under the lock and its result was returned, but the release did
	// not reach Redis: the lock stays taken until its lease ends.
	@EventListener
	void onReleaseFailed(LockReleaseFailedEvent event) {
		logger.warn("Could not release " + event.getLockName() + "; it ends with its lease", event.getFailure());
	}

	private void write(String entry) {
		// ... append the entry to the ledger
	}

}
