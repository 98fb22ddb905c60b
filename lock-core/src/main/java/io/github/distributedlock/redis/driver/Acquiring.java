package io.github.distributedlock.redis.driver;

/**
 * An acquisition a template starts and may cancel: one lock's run, or a multi-lock taken
 * in order. It tells its completion once, never after a cancel.
 */
public interface Acquiring {

	/**
	 * Take the first step.
	 */
	void start();

	/**
	 * Stop acquiring; what it won after this is released, not told.
	 * @return whether it stopped a running acquisition; if not, it had ended, and its
	 * completion hears (or heard) of the end, a grant included
	 */
	boolean cancel();

}
