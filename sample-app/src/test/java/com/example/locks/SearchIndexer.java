package com.example.locks;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockLostEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

@Component
class SearchIndexer {

	private static final Log logger = LogFactory.getLog(SearchIndexer.class);

	// No expire: the lease is distributed-lock.lease, renewed every third of it until
	// reindex() returns, however long that takes.
	@DistributedLock(scope = "search-index")
	public void reindex() {
		// ... rebuild the index
	}

	// A renewal found the lock gone (Redis lost it, or it was force-released): the work
	// may overlap with another holder's from here on.
	@EventListener
	void onLockLost(LockLostEvent event) {
		logger.warn("Lost " + event.getLockName() + " (fencing token " + event.getFencingToken() + ")");
	}

}
